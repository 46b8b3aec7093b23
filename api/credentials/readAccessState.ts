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
};

/**
 * One `getAccessState` read at the chain's latest block: reads, no gas. A chain that cannot be read
 * is 503 `service_unavailable`.
 */
export async function readAccessState(
  client: PublicClient,
  marketplace: Address,
  { onChainListingId, wallet }: { onChainListingId: Hex; wallet: Address },
): Promise<AccessRead> {
  const block = await readChainTime(client);
  const state = await client
    .readContract({
      address: marketplace,
      abi: serviceMarketplaceAbi,
      functionName: "getAccessState",
      args: [onChainListingId, wallet],
      blockNumber: block.number,
    })
    .catch(unavailableChain);
  if (state.listingStatus === 0) return { block, listing: "none", credential: undefined };
  const listing = listingStatusName(state.listingStatus);
  if (!state.hasCredential) return { block, listing, credential: undefined };
  return {
    block,
    listing,
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
