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

/**
 * One `getAccessState` read at the chain's latest block: reads, no gas; with `protocolPause`,
 * `paused()` is read beside it at the same block. A chain that cannot be read is 503
 * `service_unavailable`.
 */
export async function readAccessState(
  client: PublicClient,
  marketplace: Address,
  { onChainListingId, wallet }: { onChainListingId: Hex; wallet: Address },
  { protocolPause = false }: { protocolPause?: boolean } = {},
): Promise<AccessRead> {
  const block = await readChainTime(client);
  const read = { address: marketplace, abi: serviceMarketplaceAbi, blockNumber: block.number };
  const [state, protocolPaused] = await Promise.all([
    client.readContract({
      ...read,
      functionName: "getAccessState",
      args: [onChainListingId, wallet],
    }),
    protocolPause ? client.readContract({ ...read, functionName: "paused" }) : undefined,
  ]).catch(unavailableChain);
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
