import type { Address, Hex } from "viem";
import { credentialStatus } from "../../lib/marketplace/credentialStatus.ts";
import type { CredentialStatus, RentalModel } from "../../lib/marketplace/vocabulary.ts";
import type { ChainTime } from "../chain/chainHeads.ts";
import type { ChainReader } from "../chain/chainReader.ts";
import { readAccessState } from "./readAccessState.ts";

export type CredentialCheck =
  | { found: false }
  | {
      found: true;
      rentalModel: RentalModel;
      status: CredentialStatus;
      expiresAt: bigint;
      /** The latest block read, whose time the status is judged at. */
      block: ChainTime;
    };

/** The wallet's credential for a listing as the chain has it at its latest block: reads, no gas. */
export async function verifyCredential(
  reader: ChainReader,
  marketplace: Address,
  { onChainListingId, wallet }: { onChainListingId: Hex; wallet: Address },
): Promise<CredentialCheck> {
  const { block, credential } = await readAccessState(reader, marketplace, {
    onChainListingId,
    wallet,
  });
  if (!credential) return { found: false };
  return {
    found: true,
    rentalModel: credential.rentalModel,
    status: credentialStatus(credential, block.timestamp),
    expiresAt: credential.expiresAt,
    block,
  };
}
