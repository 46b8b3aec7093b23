import { ServiceNotFoundError } from "@service/sdk";
import { useState } from "react";
import type { Hex } from "viem";
import { RENTAL_MODELS } from "../../../lib/marketplace/vocabulary.ts";
import { TransactionForm } from "../chain/TransactionForm.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { EthField } from "../ui/EthField.tsx";
import { parseEthInput } from "../ui/ethInput.ts";
import { RENTAL_MODEL_NAMES } from "../ui/formatting.ts";

export type CreateListing = { listingId: string; seed: Hex; metadataUri: string };

/** Lists a registered agent on-chain with `createListing`, from its registration job's result. */
export function ListOnChainForm({ listingId, seed, metadataUri }: CreateListing) {
  const client = useClient();
  const { address, abi, write } = useMarketplaceWrite();
  const transaction = useMarketplaceTransaction();
  const [model, setModel] = useState<(typeof RENTAL_MODELS)[number]>("per_query");
  const [price, setPrice] = useState("0.01");
  const priceWei = parseEthInput(price);

  const submit = () => {
    if (priceWei === undefined) return;
    transaction.run(
      () =>
        write({
          address,
          abi,
          functionName: "createListing",
          args: [seed, RENTAL_MODELS.indexOf(model), priceWei, metadataUri],
        }),
      () =>
        client.listings.get(listingId).then(
          () => true,
          (error: unknown) =>
            error instanceof ServiceNotFoundError ? false : Promise.reject(error),
        ),
    );
  };

  return (
    <TransactionForm
      label="List the agent on-chain"
      transaction={transaction}
      onSubmit={submit}
      submitText="List on-chain"
      disabled={priceWei === undefined || transaction.stage === "indexed"}
      after={
        transaction.stage === "indexed" && (
          <Link href={`/listings/${listingId}`}>Open the listing</Link>
        )
      }
    >
      <label>
        Rental model
        <select
          value={model}
          onChange={(event) => setModel(event.target.value as (typeof RENTAL_MODELS)[number])}
        >
          {RENTAL_MODELS.map((option) => (
            <option key={option} value={option}>
              {RENTAL_MODEL_NAMES[option]}
            </option>
          ))}
        </select>
      </label>
      <EthField
        label="Price (ETH; per task, per purchase or per 30 days)"
        value={price}
        onChange={setPrice}
        invalid={priceWei === undefined}
      />
    </TransactionForm>
  );
}
