import type { Listing } from "@service/sdk";
import { type FormEvent, useState } from "react";
import type { Hex } from "viem";
import { SUBSCRIPTION_DAYS, subscriptionSeconds, subscriptionValue } from "../chain/marketplace.ts";
import type { MarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { findCredential } from "../credentials/findCredential.ts";
import { useClient } from "../session/SessionContext.tsx";
import { EthField } from "../ui/EthField.tsx";
import { ethInput, parseEthInput } from "../ui/ethInput.ts";
import { formatEth } from "../ui/formatting.ts";

/** Buys a first credential, by the listing's rental model; the value comes from the on-chain price. */
export function PurchaseForm({
  listing,
  priceWei,
  transaction,
}: {
  listing: Listing;
  priceWei: bigint;
  /** Kept by the page, whose credential view replaces this form once the purchase is indexed. */
  transaction: MarketplaceTransaction;
}) {
  const client = useClient();
  const { address, abi, write } = useMarketplaceWrite();
  const [days, setDays] = useState<number>(30);
  const [deposit, setDeposit] = useState(() => ethInput(priceWei * 10n));
  const id = listing.on_chain_id as Hex;

  const depositWei = parseEthInput(deposit);
  const value =
    listing.rental_model === "subscription"
      ? subscriptionValue(priceWei, days)
      : listing.rental_model === "per_query"
        ? depositWei
        : priceWei;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (value === undefined) return;
    const send = () => {
      if (listing.rental_model === "one_time") {
        return write({ address, abi, functionName: "purchaseOneTime", args: [id], value });
      }
      if (listing.rental_model === "subscription") {
        const duration = subscriptionSeconds(days);
        return write({
          address,
          abi,
          functionName: "purchaseSubscription",
          args: [id, duration],
          value,
        });
      }
      return write({ address, abi, functionName: "purchasePerQuery", args: [id, priceWei], value });
    };
    transaction.run(send, async () => !!(await findCredential(client, listing.id)));
  };

  return (
    <form onSubmit={submit} className="purchase" aria-label="Rent this agent">
      {listing.rental_model === "subscription" && (
        <fieldset>
          <legend>Subscription length</legend>
          {SUBSCRIPTION_DAYS.map((option) => (
            <label key={option} className="inline">
              <input
                type="radio"
                name="days"
                value={option}
                checked={days === option}
                onChange={() => setDays(option)}
              />
              {option} days ({formatEth(subscriptionValue(priceWei, option))})
            </label>
          ))}
        </fieldset>
      )}
      {listing.rental_model === "per_query" && (
        <EthField
          label={`Deposit (ETH), at least one task (${formatEth(priceWei)})`}
          value={deposit}
          onChange={setDeposit}
          invalid={depositWei === undefined || depositWei < priceWei}
        />
      )}
      <button
        type="submit"
        disabled={
          transaction.busy ||
          value === undefined ||
          (listing.rental_model === "per_query" && value < priceWei)
        }
      >
        {value === undefined ? "Enter an amount" : `Rent for ${formatEth(value)}`}
      </button>
    </form>
  );
}
