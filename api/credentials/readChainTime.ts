import type { PublicClient } from "viem";
import { isChainUnavailable } from "../../lib/chain/isChainUnavailable.ts";
import { ApiError } from "../errors.ts";

/** The chain's latest block: its number and its time, the clock credential statuses are read at. */
export async function readChainTime(client: PublicClient) {
  const block = await client.getBlock({ blockTag: "latest" }).catch(unavailableChain);
  return { number: block.number, timestamp: block.timestamp };
}

/** Rethrows a chain that could not be read as 503 `service_unavailable`; anything else as it is. */
export function unavailableChain(error: unknown): never {
  if (!isChainUnavailable(error)) throw error;
  throw new ApiError("service_unavailable", "The chain could not be read; retry shortly", {
    cause: error,
  });
}
