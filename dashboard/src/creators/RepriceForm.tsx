import type { CreatorListing } from "@service/sdk";
import { useState } from "react";
import type { Hex } from "viem";
import { TransactionForm } from "../chain/TransactionForm.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { useClient } from "../session/SessionContext.tsx";
import { EthField } from "../ui/EthField.tsx";
import { ethInput, parseEthInput } from "../ui/ethInput.ts";

/**
 * Changes a listing's price with `updateListing`, keeping the version its on-chain metadata_uri
 * names; done once the creator's own listings show the new price.
 */
export function RepriceForm({ listing }: { listing: CreatorListing }) {
  const client = useClient();
  const { address, abi, write } = useMarketplaceWrite();
  const transaction = useMarketplaceTransaction();
  const [price, setPrice] = useState(ethInput(listing.price_wei));
  const priceWei = parseEthInput(price);

  const submit = () => {
    if (priceWei === undefined) return;
    transaction.run(
      async () => {
        const { metadata_uri } = await client.listings.get(listing.id);
        return write({
          address,
          abi,
          functionName: "updateListing",
          args: [listing.on_chain_id as Hex, priceWei, metadata_uri],
        });
      },
      async () =>
        (await client.creators.myListings()).find((mine) => mine.id === listing.id)?.price_wei ===
        priceWei,
    );
  };

  return (
    <TransactionForm
      label={`Change the price of ${listing.title ?? listing.id}`}
      transaction={transaction}
      onSubmit={submit}
      submitText="Change the price"
      disabled={priceWei === undefined || priceWei === listing.price_wei}
    >
      <EthField
        label="New price (ETH)"
        value={price}
        onChange={setPrice}
        invalid={priceWei === undefined}
      />
    </TransactionForm>
  );
}
