import type { PublicClient } from "viem";
import { unavailableChain } from "../unavailableChain.ts";

/** The chain's latest block: its number and its time, the clock credential statuses are read at. */
export async function readChainTime(client: PublicClient) {
  const block = await client.getBlock({ blockTag: "latest" }).catch(unavailableChain);
  return { number: block.number, timestamp: block.timestamp };
}
