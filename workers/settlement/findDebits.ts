import { type Address, getAddress, type Hex, isAddressEqual } from "viem";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import type { Debit } from "../../lib/runLedger/markRuns.ts";
import type { SettlementChain } from "./settlementChain.ts";

/** The most blocks one `eth_getLogs` asks for: providers that cap the range accept this many. */
export const LOG_SEARCH_CHUNK_BLOCKS = 1_000n;
/** Blocks searched before a run's first submission: a reorg may have moved the head back since. */
export const SUBMISSION_MARGIN_BLOCKS = 128n;

/** What tells a run's own debit from another's: its id, renter, listing, and the most it may cost. */
export type RunToFind = {
  onChainRunId: string;
  wallet: string;
  onChainListingId: string;
  reservedWei: string;
  /** The head when its debit was first submitted; null for a run submitted before it was kept. */
  debitSubmittedBlock: bigint | null;
};

/**
 * The debits the chain holds of these runs, whichever transaction made them: `QueryConsumed` logs by
 * their indexed run ids, from the earliest first submission among them (less a margin) up to `head`,
 * `LOG_SEARCH_CHUNK_BLOCKS` at a time, until each is found. What decides a run whose transaction is
 * lost, or that the contract found settled already.
 */
export async function findDebits(
  chain: SettlementChain,
  wanted: RunToFind[],
  head: bigint,
): Promise<Map<bigint, Debit>> {
  const found = new Map<bigint, Debit>();
  if (wanted.length === 0) return found;
  const byId = new Map(wanted.map((run) => [BigInt(run.onChainRunId), run]));
  for (
    let from = searchStart(chain.startBlock, wanted);
    from <= head && found.size < byId.size;
    from += LOG_SEARCH_CHUNK_BLOCKS
  ) {
    const to = from + LOG_SEARCH_CHUNK_BLOCKS - 1n;
    const logs = await chain.client.getContractEvents({
      address: chain.marketplace,
      abi: serviceMarketplaceAbi,
      eventName: "QueryConsumed",
      args: { runId: [...byId.keys()].filter((runId) => !found.has(runId)) },
      fromBlock: from,
      toBlock: to < head ? to : head,
      strict: true,
    });
    for (const log of logs) {
      const run = byId.get(log.args.runId);
      if (run === undefined || !isDebitOf(run, log.args)) continue;
      found.set(log.args.runId, {
        price: log.args.price,
        block: log.blockNumber,
        tx: log.transactionHash,
      });
    }
  }
  return found;
}

/** No debit of a run is in a block before its first submission; the margin allows for a reorg. */
function searchStart(deployedAt: bigint, wanted: RunToFind[]): bigint {
  let earliest: bigint | undefined;
  for (const { debitSubmittedBlock } of wanted) {
    // Submitted before the block was kept: searched for since the deployment.
    if (debitSubmittedBlock === null) return deployedAt;
    if (earliest === undefined || debitSubmittedBlock < earliest) earliest = debitSubmittedBlock;
  }
  const start = (earliest ?? deployedAt) - SUBMISSION_MARGIN_BLOCKS;
  return start > deployedAt ? start : deployedAt;
}

/**
 * Whether a `QueryConsumed` carrying the run's id charged this run: its renter, on its listing, at
 * most its reserved price. A database restored from a backup hands out run ids the chain has seen, so
 * the id alone names some run's debit, not necessarily this one's.
 */
function isDebitOf(
  run: RunToFind,
  event: { listingId: Hex; buyer: Address; price: bigint },
): boolean {
  return (
    event.listingId.toLowerCase() === run.onChainListingId.toLowerCase() &&
    isAddressEqual(event.buyer, getAddress(run.wallet)) &&
    event.price <= BigInt(run.reservedWei)
  );
}
