import type { Address, Hex, PublicClient } from "viem";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { type CredentialFacts, credentialStatus } from "../../lib/marketplace/credentialStatus.ts";
import {
  type CredentialStatus,
  listingStatusName,
  type RentalModel,
  rentalModelName,
} from "../../lib/marketplace/vocabulary.ts";
import { unavailableChain } from "../unavailableChain.ts";
import { readChainTime } from "./readChainTime.ts";

export type CredentialCheck =
  | { found: false }
  | { found: true; rentalModel: RentalModel; status: CredentialStatus; expiresAt: bigint };

/** The wallet's credential for a listing as the chain has it at its latest block: reads, no gas. */
export async function verifyCredential(
  client: PublicClient,
  marketplace: Address,
  { onChainListingId, wallet }: { onChainListingId: Hex; wallet: Address },
): Promise<CredentialCheck> {
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
  if (!state.hasCredential) return { found: false };
  const facts: CredentialFacts = {
    rentalModel: rentalModelName(state.model),
    listingStatus: listingStatusName(state.listingStatus),
    isRevoked: state.isRevoked,
    expiresAt: BigInt(state.expiresAt),
    balance: state.balance,
    price: state.price,
    agreedPrice: state.agreedPrice,
  };
  return {
    found: true,
    rentalModel: facts.rentalModel,
    status: credentialStatus(facts, block.timestamp),
    expiresAt: facts.expiresAt,
  };
}
