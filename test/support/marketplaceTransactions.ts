// Marketplace transactions as the indexer tests send them, and where they landed.
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { type MarketplaceConnection, METADATA_URI, seedOf } from "../../devStack/marketplace.ts";
import { deriveListingId } from "../../lib/ids/listingId.ts";
import { RENTAL_MODELS, type RentalModel } from "../../lib/marketplace/vocabulary.ts";

/** Where a transaction landed, as the event tables record it. */
export type Landed = { blockNumber: bigint; timestamp: bigint; transactionHash: Hex };

/** Where a mined transaction (a receipt, say) landed, with its block's time. */
export async function landedIn(
  marketplace: MarketplaceConnection,
  { blockNumber, transactionHash }: { blockNumber: bigint; transactionHash: Hex },
): Promise<Landed> {
  const block = await marketplace.publicClient.getBlock({ blockNumber });
  return { blockNumber, timestamp: block.timestamp, transactionHash };
}

/** `createListing` by `creator` with the seed of `seedText`: the sent transaction and the listing's id. */
export function createListing(
  marketplace: MarketplaceConnection,
  creator: HDAccount,
  listing: { seedText: string; rentalModel: RentalModel; price: bigint },
): { id: Hex; transaction: Promise<Hex> } {
  const seed = seedOf(listing.seedText);
  const model = RENTAL_MODELS.indexOf(listing.rentalModel);
  return {
    id: deriveListingId(creator.address, seed),
    transaction: marketplace
      .as(creator)
      .write.createListing([seed, model, listing.price, METADATA_URI]),
  };
}
