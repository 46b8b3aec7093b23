import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { Hex } from "viem";
import { SUBSCRIPTION_DAYS, subscriptionSeconds, subscriptionValue } from "../chain/marketplace.ts";
import { TransactionForm } from "../chain/TransactionForm.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { useOnChainListing } from "../chain/useOnChainListing.ts";
import { useClient } from "../session/SessionContext.tsx";
import { DateTime } from "../ui/DateTime.tsx";
import { formatEth } from "../ui/formatting.ts";
import { findCredential } from "./findCredential.ts";

/** Extends a subscription from the later of now and its expiry, which it shows as indexed. */
export function RenewForm({ listingId, onChainId }: { listingId: string; onChainId: Hex }) {
  const client = useClient();
  const credential = useQuery({
    queryKey: ["credential", listingId],
    // The index may not hold a credential the chain already does: null, as the query needs a value.
    queryFn: async () => (await findCredential(client, listingId)) ?? null,
  });
  const { listing } = useOnChainListing(onChainId);
  const { address, abi, write } = useMarketplaceWrite();
  const transaction = useMarketplaceTransaction();
  const [days, setDays] = useState<number>(30);
  const price = listing?.price;

  const submit = async () => {
    if (price === undefined) return;
    const before = (await findCredential(client, listingId))?.expires_at;
    transaction.run(
      () =>
        write({
          address,
          abi,
          functionName: "renewSubscription",
          args: [onChainId, subscriptionSeconds(days)],
          value: subscriptionValue(price, days),
        }),
      async () => (await findCredential(client, listingId))?.expires_at !== before,
    );
  };

  return (
    <TransactionForm
      label="Renew the subscription"
      transaction={transaction}
      onSubmit={submit}
      submitText="Renew"
      disabled={price === undefined}
    >
      <p>
        Expires:{" "}
        <span data-testid="expires">
          <DateTime iso={credential.data?.expires_at ?? null} />
        </span>
      </p>
      <label>
        Renew for
        <select value={days} onChange={(event) => setDays(Number(event.target.value))}>
          {SUBSCRIPTION_DAYS.map((option) => (
            <option key={option} value={option}>
              {option} days
              {price === undefined ? "" : ` (${formatEth(subscriptionValue(price, option))})`}
            </option>
          ))}
        </select>
      </label>
    </TransactionForm>
  );
}
