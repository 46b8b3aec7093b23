import type { ChainReader } from "../chainReader.ts";
import { unavailableChain } from "../unavailableChain.ts";
import { dependencyError } from "../unavailableDependency.ts";
import { joinedRead } from "./joinedRead.ts";

type ChainTime = { number: bigint; timestamp: bigint };

/** Per reader: requests arriving together share one read of the latest block. */
const latestBlock = new WeakMap<ChainReader, () => Promise<ChainTime>>();

/**
 * The chain's latest block: its number and its time, the clock credential statuses are read at.
 * Requests arriving in the same turn of the event loop share one `eth_getBlockByNumber`, sent after
 * the last of them arrived, so each still reads the latest block as of its arrival.
 */
export function readChainTime(reader: ChainReader): Promise<ChainTime> {
  let read = latestBlock.get(reader);
  if (!read) {
    read = joinedRead(async () => {
      const block = await reader
        .read("eth_getBlockByNumber", ["latest", false])
        .catch(unavailableChain);
      return chainTime(block);
    });
    latestBlock.set(reader, read);
  }
  return read();
}

function chainTime(block: unknown): ChainTime {
  const { number, timestamp } = (block ?? {}) as { number?: unknown; timestamp?: unknown };
  if (typeof number !== "string" || typeof timestamp !== "string") {
    throw dependencyError("chain", new Error("The node answered no latest block"));
  }
  return { number: BigInt(number), timestamp: BigInt(timestamp) };
}
