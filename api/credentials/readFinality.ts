import type { Address, Hex } from "viem";
import { credentialStatus } from "../../lib/marketplace/credentialStatus.ts";
import type { CredentialFinality } from "../../lib/marketplace/vocabulary.ts";
import type { ChainTime } from "../chain/chainHeads.ts";
import type { ChainReader } from "../chain/chainReader.ts";
import { readCredentialAt, type SettledTag } from "./readAccessState.ts";

/**
 * How deep in the chain a credential valid at the `latest` block is valid: `finalized` when it is
 * valid at the node's finalized block and at its safe block, else `safe` when valid at the safe
 * block, else `latest`. Each tag's state is judged at `latest`'s time: would the credential still be
 * valid now if the blocks after that tag were undone. Two `getAccessState` reads, sent together and
 * shared by requests at the same latest block; a chain that cannot be read is 503.
 */
export async function readFinality(
  reader: ChainReader,
  marketplace: Address,
  subject: { onChainListingId: Hex; wallet: Address },
  latest: ChainTime,
): Promise<CredentialFinality> {
  const validAt = async (tag: SettledTag) => {
    const credential = await readCredentialAt(reader, marketplace, subject, tag, latest);
    return credential !== undefined && credentialStatus(credential, latest.timestamp) === "active";
  };
  const [safe, finalized] = await Promise.all([validAt("safe"), validAt("finalized")]);
  if (!safe) return "latest";
  return finalized ? "finalized" : "safe";
}
