import { and, asc, eq, inArray } from "drizzle-orm";
import type { Hex } from "viem";
import { agents, runs } from "../../lib/db/appSchema.ts";
import { announceDebited } from "../../lib/runLedger/announce.ts";
import {
  type DebitedRun,
  markDebited,
  markLogged,
  runToSettle,
} from "../../lib/runLedger/markRuns.ts";
import { countedOnChain } from "./countedRuns.ts";
import { recordedRunIds } from "./debitOutcomes.ts";
import { findDebits, type RunToFind } from "./findDebits.ts";
import { recordedOnChain } from "./recordedOnChain.ts";
import type { SettlementContext } from "./settlementContext.ts";

/**
 * Logs finished runs no debit will log (one-time and subscription runs, failed runs, refused debits)
 * with one `recordRuns`, and marks them logged. The contract skips a run id it has settled already, so
 * sending a batch again after a crash logs nothing twice. Runs the chain is not to count (a creator's
 * of its own listing, those refused before they started: `countedOnChain`) are marked logged without
 * being sent, so no gas is paid for them. Returns how many it marked.
 */
export async function logFinishedRuns(context: SettlementContext): Promise<number> {
  const { db, chain, leadership, log } = context;
  const finished = await db
    .select({ ...runToSettle, failure: runs.failure, creator: agents.creator })
    .from(runs)
    .leftJoin(agents, eq(agents.onChainListingId, runs.onChainListingId))
    .where(
      and(
        eq(runs.logged, false),
        inArray(runs.status, ["completed", "failed"]),
        inArray(runs.charge, ["none", "released", "refused"]),
      ),
    )
    .orderBy(asc(runs.finishedAt), asc(runs.onChainRunId))
    .limit(context.logBatchSize);
  if (finished.length === 0) return 0;
  const due = finished.filter(countedOnChain);
  const uncounted = finished.filter((run) => !countedOnChain(run));
  if (uncounted.length > 0) {
    await markUncountedLogged(context, uncounted);
    if (due.length === 0) return finished.length;
  }
  const records = due.map((run) => ({
    listingId: run.onChainListingId as Hex,
    runId: BigInt(run.onChainRunId),
    succeeded: run.status === "completed",
  }));
  const tx = await chain.send({ functionName: "recordRuns", args: [records] }, () =>
    leadership.leads(),
  );
  if (tx === undefined) return uncounted.length;
  const receipt = await chain.receiptOf(tx, context.receiptTimeoutMs);
  if (receipt.status === "reverted") throw new Error(`run log transaction ${tx} reverted`);
  const recorded = recordedRunIds(receipt, chain.marketplace);
  await markLogged(
    db,
    due.map(({ id }) => id),
  );
  // A refused run whose id the chain had settled before: debited after all, by an earlier attempt.
  const settledBefore = due.filter(
    (run) => run.charge === "refused" && !recorded.has(BigInt(run.onChainRunId)),
  );
  const corrected = await markDebited(
    db,
    await findDebits(chain, settledBefore, receipt.blockNumber),
  );
  announceDebited(context.bus, corrected);
  log.info("runs logged", {
    tx,
    block: receipt.blockNumber.toString(),
    logged: recorded.size,
    logged_before: due.length - recorded.size,
  });
  return finished.length;
}

/**
 * Marks logged, with no transaction, runs the chain is not to count. A refused debit among them may
 * have been made by an earlier transaction after all (its `QueryConsumed` log says so): then debited.
 */
async function markUncountedLogged(
  context: SettlementContext,
  uncounted: (RunToFind & { id: string; charge: string })[],
): Promise<void> {
  const { chain } = context;
  const refused = uncounted.filter((run) => run.charge === "refused");
  let corrected: DebitedRun[] = [];
  if (refused.length > 0) {
    // Only a run id the contract holds can have a debit: the others need no search of the logs.
    const head = await chain.client.getBlockNumber();
    const recorded = await recordedOnChain(
      chain,
      refused.map(({ onChainRunId }) => BigInt(onChainRunId)),
      head,
    );
    const settled = refused.filter(({ onChainRunId }) => recorded.has(BigInt(onChainRunId)));
    corrected = await markDebited(context.db, await findDebits(chain, settled, head));
  }
  await markLogged(
    context.db,
    uncounted.map(({ id }) => id),
  );
  announceDebited(context.bus, corrected);
  context.log.info("runs left uncounted", { runs: uncounted.length });
}
