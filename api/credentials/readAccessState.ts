import type { Address, Hex, PublicClient } from "viem";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import type { CredentialFacts } from "../../lib/marketplace/credentialStatus.ts";
import {
  type ListingStatus,
  listingStatusName,
  rentalModelName,
} from "../../lib/marketplace/vocabulary.ts";
import { unavailableChain } from "../unavailableChain.ts";
import { readChainTime } from "./readChainTime.ts";

/** A wallet's access to a listing as the chain has it at one block. */
export type AccessRead = {
  /** The block read: its number and its time, the clock statuses are judged at. */
  block: { number: bigint; timestamp: bigint };
  /** The listing's status; `none` when the chain has no listing at this id. */
  listing: ListingStatus | "none";
  /** Undefined when the wallet holds no credential for the listing (or there is no listing). */
  credential: CredentialFacts | undefined;
  /** Whether the protocol is paused (no run can be charged) at that block, when asked for. */
  protocolPaused?: boolean;
};

type StateRead = Promise<[Awaited<ReturnType<typeof readState>>, boolean | undefined]>;

/** Distinct reads kept for one block: a chain whose blocks stop coming must not grow them forever. */
const MAX_READS_PER_BLOCK = 10_000;

/** Per client, the reads of its latest block seen: one per listing, wallet and pause question. */
const readsOfBlock = new WeakMap<PublicClient, { block: bigint; reads: Map<string, StateRead> }>();

/**
 * One `getAccessState` read at the chain's latest block: reads, no gas; with `protocolPause`,
 * `paused()` is read beside it at the same block. Requests that find the same latest block share
 * the read of their listing and wallet (a newer block starts afresh). A chain that cannot be read is
 * 503 `service_unavailable`.
 */
export async function readAccessState(
  client: PublicClient,
  marketplace: Address,
  { onChainListingId, wallet }: { onChainListingId: Hex; wallet: Address },
  { protocolPause = false }: { protocolPause?: boolean } = {},
): Promise<AccessRead> {
  const block = await readChainTime(client);
  let seen = readsOfBlock.get(client);
  if (!seen || seen.block < block.number || seen.reads.size >= MAX_READS_PER_BLOCK) {
    seen = { block: block.number, reads: new Map() };
    readsOfBlock.set(client, seen);
  }
  const key = `${marketplace}:${onChainListingId}:${wallet}:${protocolPause}`.toLowerCase();
  let shared = seen.block === block.number ? seen.reads.get(key) : undefined;
  if (!shared) {
    const read = { address: marketplace, abi: serviceMarketplaceAbi, blockNumber: block.number };
    shared = Promise.all([
      readState(client, read, onChainListingId, wallet),
      protocolPause ? client.readContract({ ...read, functionName: "paused" }) : undefined,
    ]);
    if (seen.block === block.number) {
      const reads = seen.reads;
      reads.set(key, shared);
      // A failed read is not kept: the next request tries the chain again.
      shared.catch(() => reads.delete(key));
    }
  }
  const [state, protocolPaused] = await shared.catch(unavailableChain);
  if (state.listingStatus === 0) {
    return { block, listing: "none", credential: undefined, protocolPaused };
  }
  const listing = listingStatusName(state.listingStatus);
  if (!state.hasCredential) return { block, listing, credential: undefined, protocolPaused };
  return {
    block,
    listing,
    protocolPaused,
    credential: {
      rentalModel: rentalModelName(state.model),
      listingStatus: listing,
      isRevoked: state.isRevoked,
      expiresAt: BigInt(state.expiresAt),
      balance: state.balance,
      price: state.price,
      agreedPrice: state.agreedPrice,
    },
  };
}

function readState(
  client: PublicClient,
  read: { address: Address; abi: typeof serviceMarketplaceAbi; blockNumber: bigint },
  onChainListingId: Hex,
  wallet: Address,
) {
  return client.readContract({
    ...read,
    functionName: "getAccessState",
    args: [onChainListingId, wallet],
  });
}
