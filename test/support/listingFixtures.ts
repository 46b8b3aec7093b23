// Listings as API tests publish them: the agent saved as registration saves it, then
// `createListing` on-chain, many in one block; and bought.
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { METADATA_URI, seedOf } from "../../devStack/marketplace.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { type PublicManifest, saveAgent } from "../../lib/agents/saveAgent.ts";
import type { Database } from "../../lib/db/projections.ts";
import { agentIdOf } from "../../lib/ids/agentId.ts";
import { deriveListingId, toApiListingId } from "../../lib/ids/listingId.ts";
import { type MinedBlock, mineIndexedBlock, type Transaction, transaction } from "./mineBlock.ts";

export type ListingDraft = {
  creator: HDAccount;
  /** Text the listing's seed is hashed from; unique per creator. */
  seed: string;
  model: number;
  price: bigint;
  manifest: PublicManifest;
  /** false: created on-chain only, never registered, so never published. */
  registered?: boolean;
};

export type ListingIds = { onChainId: Hex; id: string };

/** A listing's on-chain and API ids, known before it exists. */
export function listingIdsOf({
  creator,
  seed,
}: Pick<ListingDraft, "creator" | "seed">): ListingIds {
  const onChainId = deriveListingId(creator.address, seedOf(seed));
  return { onChainId, id: toApiListingId(onChainId) };
}

/**
 * Drafts of `creator`'s agents for one test file: seeds `${seedPrefix}-${name}`, each agent in
 * `category`, described `${name}, ${described}`, with the `manifest` fields given.
 */
export function agentDrafts(
  creator: HDAccount,
  { seedPrefix, category, described }: { seedPrefix: string; category: string; described: string },
) {
  return (
    name: string,
    model: number,
    price: bigint,
    manifest: Record<string, unknown> = {},
  ): ListingDraft => ({
    creator,
    seed: `${seedPrefix}-${name}`,
    model,
    price,
    manifest: { name, category, description: `${name}, ${described}`, ...manifest },
  });
}

/** Each draft's ids, under the draft's key. */
export function listingIdsByKey<Key extends string>(
  drafts: Record<Key, ListingDraft>,
): Record<Key, ListingIds> {
  return Object.fromEntries(
    Object.entries<ListingDraft>(drafts).map(([key, draft]) => [key, listingIdsOf(draft)]),
  ) as Record<Key, ListingIds>;
}

/** Saves the draft's agent as the registration code path does. */
export async function registerAgent(db: Database, draft: ListingDraft): Promise<void> {
  const { onChainId } = listingIdsOf(draft);
  await saveAgent(db, {
    agentId: agentIdOf(draft.manifest.name, onChainId),
    onChainListingId: onChainId,
    creator: draft.creator.address,
    publicManifest: draft.manifest,
    metadataUri: METADATA_URI,
  });
}

/** The draft's `createListing`, for `mineBlock`. */
export function createListing(draft: ListingDraft): Transaction {
  return transaction(draft.creator, (marketplace) =>
    marketplace.write.createListing([seedOf(draft.seed), draft.model, draft.price, METADATA_URI]),
  );
}

/** `buyer`'s `purchaseOneTime` of `listing` at `price`, for `mineBlock`. */
export function oneTimePurchase(buyer: HDAccount, listing: ListingIds, price: bigint): Transaction {
  return transaction(buyer, (marketplace) =>
    marketplace.write.purchaseOneTime([listing.onChainId], { value: price }),
  );
}

/** `buyer`'s `purchasePerQuery` of `tasks` tasks of `listing` at `price` each, for `mineBlock`. */
export function perTaskDeposit(
  buyer: HDAccount,
  listing: ListingIds,
  price: bigint,
  tasks: bigint,
): Transaction {
  return transaction(buyer, (marketplace) =>
    marketplace.write.purchasePerQuery([listing.onChainId, price], { value: tasks * price }),
  );
}

/**
 * Registers the drafts' agents (but those with `registered: false`), creates them all on-chain in
 * one block (at `timestamp`, if given) and waits for the indexer; returns their ids and the block
 * (their `published_at`).
 */
export async function publishListings(
  stack: Stack,
  drafts: ListingDraft[],
  options: { timestamp?: bigint } = {},
): Promise<{ listings: ListingIds[]; block: MinedBlock }> {
  await Promise.all(
    drafts.filter((draft) => draft.registered !== false).map((d) => registerAgent(stack.db, d)),
  );
  const block = await mineIndexedBlock(stack, drafts.map(createListing), options);
  return { listings: drafts.map(listingIdsOf), block };
}

/** How the catalogue names a creator without a display name: `0x1234…abcd`. */
export function shortAddress(account: HDAccount): string {
  return `${account.address.slice(0, 6)}…${account.address.slice(-4)}`;
}

/** Unix seconds as the API writes times. */
export function isoOf(seconds: bigint | number): string {
  return new Date(Number(seconds) * 1000).toISOString();
}
