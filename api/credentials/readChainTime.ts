import { type ChainTime, chainTime } from "../chain/chainHeads.ts";
import type { ChainReader } from "../chain/chainReader.ts";
import { unavailableChain } from "../chain/unavailableChain.ts";
import { dependencyError } from "../http/unavailableDependency.ts";
import { joinedRead } from "./joinedRead.ts";

/** Per reader: requests arriving together share one read of the latest block. */
const latestBlock = new WeakMap<ChainReader, () => Promise<ChainTime>>();

/**
 * The chain's latest block: its number and its time, the clock credential statuses are read at. It
 * is the head the node announced while one is trusted (`ChainReader.heads`), unless `fresh`; else
 * requests arriving in the same turn of the event loop share one `eth_getBlockByNumber`, sent after
 * the last of them arrived, so each still reads the latest block as of its arrival.
 */
export function readChainTime(
  reader: ChainReader,
  { fresh = false }: { fresh?: boolean } = {},
): Promise<ChainTime> {
  const head = fresh ? undefined : reader.heads?.latest();
  if (head) return Promise.resolve(head);
  let read = latestBlock.get(reader);
  if (!read) {
    read = joinedRead(async () => {
      const block = await reader
        .read("eth_getBlockByNumber", ["latest", false])
        .catch(unavailableChain);
      const latest = chainTime(block);
      if (!latest) throw dependencyError("chain", new Error("The node answered no latest block"));
      return latest;
    });
    latestBlock.set(reader, read);
  }
  return read();
}
