import { useState } from "react";
import type { Hex } from "viem";
import { TransactionForm } from "../chain/TransactionForm.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { EthField } from "../ui/EthField.tsx";
import { ethInput, parseEthInput } from "../ui/ethInput.ts";

export type UpdateListing = {
  on_chain_listing_id: string;
  price: string | null;
  metadata_uri: string;
};

/**
 * Makes a registered version current with `updateListing`, at the listing's price or a new one:
 * renters see it, and runs run it, once the marketplace has indexed the call.
 */
export function MakeVersionCurrentForm({
  listingId,
  update,
}: {
  listingId: string;
  update: UpdateListing;
}) {
  const client = useClient();
  const { address, abi, write } = useMarketplaceWrite();
  const transaction = useMarketplaceTransaction();
  const [price, setPrice] = useState(update.price === null ? "" : ethInput(BigInt(update.price)));
  const priceWei = parseEthInput(price);

  const submit = () => {
    if (priceWei === undefined) return;
    transaction.run(
      () =>
        write({
          address,
          abi,
          functionName: "updateListing",
          args: [update.on_chain_listing_id as Hex, priceWei, update.metadata_uri],
        }),
      async () => (await client.listings.get(listingId)).shown_metadata_uri === update.metadata_uri,
    );
  };

  return (
    <TransactionForm
      label="Make the version current"
      transaction={transaction}
      onSubmit={submit}
      submitText="Make it current"
      disabled={priceWei === undefined || transaction.stage === "indexed"}
      after={
        transaction.stage === "indexed" && (
          <Link href={`/listings/${listingId}`}>Open the listing</Link>
        )
      }
    >
      <EthField
        label="Price (ETH)"
        value={price}
        onChange={setPrice}
        invalid={priceWei === undefined}
      />
    </TransactionForm>
  );
}
