import { useState } from "react";
import type { Hex } from "viem";
import { TransactionForm } from "../chain/TransactionForm.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { useOnChainListing } from "../chain/useOnChainListing.ts";
import { useClient } from "../session/SessionContext.tsx";
import { EthField } from "../ui/EthField.tsx";
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

  const submit = () => {
    if (price === undefined || value === undefined) return;
    transaction.run(
      () => write({ address, abi, functionName: "topUpBalance", args: [onChainId, price], value }),
      async () => (await findCredential(client, listingId))?.status === "active",
    );
  };

  return (
    <TransactionForm
      label="Top up the balance"
      transaction={transaction}
      onSubmit={submit}
      submitText="Top up"
      disabled={price === undefined || value === undefined || value < price}
    >
      <EthField label="Top up (ETH)" value={text} onChange={setAmount} />
    </TransactionForm>
  );
}
