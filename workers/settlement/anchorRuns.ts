import { type Hex, parseEventLogs, type TransactionReceipt, zeroHash } from "viem";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import type { AnchorCount } from "../../lib/db/appSchema.ts";
import { runReceipt } from "../../lib/receipts/runReceipt.ts";
import { announceDebited } from "../../lib/runLedger/announce.ts";
import {
  assignAnchor,
  markAnchored,
  pendingAnchor,
  type RunToAnchor,
  recordAnchorTx,
  runsToAnchor,
} from "../../lib/runLedger/assignAnchor.ts";
import { markDebited } from "../../lib/runLedger/markRuns.ts";
import { buildMerkleTree } from "../../sdk/src/receipts/merkleTree.ts";
import { receiptLeaf } from "../../sdk/src/receipts/receiptLeaf.ts";
import { countedOnChain } from "./countedRuns.ts";
import { findDebits } from "./findDebits.ts";
import { recordedOnChain } from "./recordedOnChain.ts";
import type { SettlementContext } from "./settlementContext.ts";

/** A batch of receipts to anchor: its Merkle root, and the runs the chain is to count with it. */
export type AnchorToSend = { root: Hex; counts: AnchorCount[]; runs: number };

/** What `settle` anchors when it carries no anchor. */
export const NO_ANCHOR = { root: zeroHash, counts: [] as AnchorCount[] };

/**
 * The anchor this round sends: the one left pending by an earlier round (unless the chain holds it
 * after all: then marked, and the next), else a new one of the oldest settled runs with no anchor
 * (docs/receipts.md), once `anchorIntervalMs` have passed since the last or a full batch waits.
 * Undefined when there is nothing to anchor yet.
 */
export async function nextAnchor(context: SettlementContext): Promise<AnchorToSend | undefined> {
  const pending = await pendingAnchor(context.db);
  if (pending) {
    const root = pending.root as Hex;
    if (!(await confirmAnchor(context, root))) return { root, counts: pending.counts, runs: 0 };
  }
  return prepareAnchor(context);
}

/** Sends `anchor` in a transaction of its own, and marks it once the chain holds it. */
export async function sendAnchor(context: SettlementContext, anchor: AnchorToSend): Promise<void> {
  const { chain, leadership } = context;
  const tx = await chain.send(
    { functionName: "settle", args: [[], anchor.root, anchor.counts] },
    async (hash) => (await leadership.leads()) && recordAnchorTx(context.db, anchor.root, hash),
  );
  if (tx === undefined) return;
  const receipt = await chain.receiptOf(tx, context.receiptTimeoutMs);
  if (!(await confirmAnchor(context, anchor.root, receipt))) {
    throw new Error(
      `anchor transaction ${tx} (${receipt.status}) left root ${anchor.root} unanchored`,
    );
  }
}

/**
 * Marks the anchor `root` anchored when the chain holds it: by `receipt`'s `RunsAnchored` when it
 * has one, else by the contract's `anchoredAt` (a resend, or a transaction lost to this process).
 */
export async function confirmAnchor(
  context: SettlementContext,
  root: Hex,
  receipt?: TransactionReceipt,
): Promise<boolean> {
  const { chain, db, log } = context;
  const anchoredHere = receipt && anchoredIn(receipt, chain.marketplace).has(root);
  const block = anchoredHere
    ? receipt.blockNumber
    : await chain.client.readContract({
        address: chain.marketplace,
        abi: serviceMarketplaceAbi,
        functionName: "anchoredAt",
        args: [root],
      });
  if (block === 0n) return false;
  const tx = anchoredHere ? receipt.transactionHash : await anchoringTx(context, root, block);
  await markAnchored(db, root, tx, block);
  log.info("receipts anchored", { root, tx, block: block.toString() });
  return true;
}

/** Builds and assigns a new anchor of the oldest settled runs with none. */
async function prepareAnchor(context: SettlementContext): Promise<AnchorToSend | undefined> {
  const candidates = await runsToAnchor(context.db, context.logBatchSize);
  if (candidates.length === 0) return undefined;
  // Each anchor stores a root (a new slot, 22,100 gas): fewer and fuller under load.
  const dueAt = context.anchoring.lastPreparedAt + context.anchoring.intervalMs;
  if (candidates.length < context.logBatchSize && Date.now() < dueAt) return undefined;
  context.anchoring.lastPreparedAt = Date.now();
  const debitedAfterAll = await debitedBeforeRefusal(context, candidates);
  const batch = candidates.filter(({ id }) => !debitedAfterAll.has(id));
  if (batch.length === 0) return undefined;
  const receipts = batch.map((run) => ({ id: run.id, receipt: runReceipt(run) }));
  const leaves = receipts.map(({ receipt }) => receiptLeaf(receipt));
  const tree = buildMerkleTree(leaves);
  const counts = countsOf(batch.filter((run) => !run.logged && countedOnChain(run)));
  await assignAnchor(
    context.db,
    { root: tree.root, counts },
    receipts.map(({ id, receipt }, i) => ({ id, receipt, proof: tree.proofOf(leaves[i] as Hex) })),
  );
  return { root: tree.root, counts, runs: batch.length };
}

/**
 * The refused runs among `runs` whose id the chain holds as settled: an earlier submission debited
 * them after all. Marked debited here; they are anchored with their cost in a later round.
 */
async function debitedBeforeRefusal(
  context: SettlementContext,
  candidates: RunToAnchor[],
): Promise<Set<string>> {
  const refused = candidates.filter((run) => run.charge === "refused");
  if (refused.length === 0) return new Set();
  const { chain } = context;
  const head = await chain.client.getBlockNumber();
  const recorded = await recordedOnChain(
    chain,
    refused.map(({ onChainRunId }) => BigInt(onChainRunId)),
    head,
  );
  const settled = refused.filter(({ onChainRunId }) => recorded.has(BigInt(onChainRunId)));
  if (settled.length === 0) return new Set();
  const corrected = await markDebited(context.db, await findDebits(chain, settled, head));
  announceDebited(context.bus, corrected);
  return new Set(corrected.map(({ id }) => id));
}

/** Runs and failures per listing, in listing order (the same batch always gives the same counts). */
function countsOf(counted: RunToAnchor[]): AnchorCount[] {
  const byListing = new Map<string, AnchorCount>();
  for (const run of counted) {
    const listingId = run.onChainListingId.toLowerCase() as Hex;
    const count = byListing.get(listingId) ?? { listingId, runs: 0, failed: 0 };
    count.runs += 1;
    if (run.status !== "completed") count.failed += 1;
    byListing.set(listingId, count);
  }
  return [...byListing.values()].sort((a, b) => (a.listingId < b.listingId ? -1 : 1));
}

/** The roots a receipt's `RunsAnchored` logs anchored. */
function anchoredIn(receipt: TransactionReceipt, marketplace: Hex): Set<Hex> {
  const logs = parseEventLogs({
    abi: serviceMarketplaceAbi,
    eventName: "RunsAnchored",
    logs: receipt.logs.filter((log) => log.address.toLowerCase() === marketplace.toLowerCase()),
  });
  return new Set(logs.map((log) => log.args.root));
}

/** The transaction whose `RunsAnchored` anchored `root` in `block`. */
async function anchoringTx(context: SettlementContext, root: Hex, block: bigint): Promise<Hex> {
  const { chain } = context;
  const [log] = await chain.client.getContractEvents({
    address: chain.marketplace,
    abi: serviceMarketplaceAbi,
    eventName: "RunsAnchored",
    args: { root },
    fromBlock: block,
    toBlock: block,
  });
  if (!log) throw new Error(`no RunsAnchored of ${root} in block ${block}`);
  return log.transactionHash;
}
