import type { PublicClient } from "viem";
import { unavailableChain } from "../unavailableChain.ts";
import { joinedRead } from "./joinedRead.ts";

type ChainTime = { number: bigint; timestamp: bigint };

/** Per client: requests arriving together share one read of the latest block. */
const latestBlock = new WeakMap<PublicClient, () => Promise<ChainTime>>();

/**
 * The chain's latest block: its number and its time, the clock credential statuses are read at.
 * Requests arriving in the same turn of the event loop share one `eth_getBlockByNumber`, sent after
 * the last of them arrived, so each still reads the latest block as of its arrival.
 */
export function readChainTime(client: PublicClient): Promise<ChainTime> {
  let read = latestBlock.get(client);
  if (!read) {
    read = joinedRead(async () => {
      const block = await client.getBlock({ blockTag: "latest" }).catch(unavailableChain);
      return { number: block.number, timestamp: block.timestamp };
    });
    latestBlock.set(client, read);
  }
  return read();
}
