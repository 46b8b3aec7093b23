import { type FormEvent, useState } from "react";
import type { Hex } from "viem";
import { TransactionProgress } from "../chain/TransactionProgress.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { useOnChainListing } from "../chain/useOnChainListing.ts";
import { useClient } from "../session/SessionContext.tsx";
import { ethInput, parseEthInput } from "../ui/ethInput.ts";
import { findCredential } from "./findCredential.ts";

/** Adds to a per-task balance, agreeing to the listing's current price. */
export function TopUpForm({ listingId, onChainId }: { listingId: string; onChainId: Hex }) {
  const client = useClient();
  const { listing } = useOnChainListing(onChainId);
  const { address, abi, write } = useMarketplaceWrite();
  const transaction = useMarketplaceTransaction();
  const [amount, setAmount] = useState<string>();
  const price = listing?.price;
  const text = amount ?? (price === undefined ? "" : ethInput(price * 10n));
  const value = parseEthInput(text);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (price === undefined || value === undefined) return;
    transaction.run(
      () => write({ address, abi, functionName: "topUpBalance", args: [onChainId, price], value }),
      async () => (await findCredential(client, listingId))?.status === "active",
    );
  };

  return (
    <form onSubmit={submit} className="inline-form" aria-label="Top up the balance">
      <label>
        Top up (ETH)
        <input
          type="number"
          min="0"
          step="any"
          inputMode="decimal"
          value={text}
          onChange={(event) => setAmount(event.target.value)}
        />
      </label>
      <button
        type="submit"
        disabled={transaction.busy || price === undefined || value === undefined || value < price}
      >
        Top up
      </button>
      <TransactionProgress
        stage={transaction.stage}
        hash={transaction.hash}
        error={transaction.error}
      />
    </form>
  );
}
