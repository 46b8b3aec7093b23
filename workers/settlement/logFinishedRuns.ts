import { and, asc, eq, inArray } from "drizzle-orm";
import type { Hex } from "viem";
import { runs } from "../../lib/db/appSchema.ts";
import { announceChanged } from "../../lib/runLedger/announce.ts";
import { markDebited, markLogged, runToSettle } from "../../lib/runLedger/markRuns.ts";
import { recordedRunIds } from "./debitOutcomes.ts";
import { findDebits } from "./findDebits.ts";
import type { SettlementContext } from "./settlementContext.ts";

/**
 * Logs finished runs no debit will log (one-time and subscription runs, failed runs, refused debits)
 * with one `recordRuns`, and marks them logged. The contract skips a run id it has settled already, so
 * sending a batch again after a crash logs nothing twice. Returns how many it logged.
 */
export async function logFinishedRuns(context: SettlementContext): Promise<number> {
  const { db, chain, leadership, log } = context;
  const due = await db
    .select(runToSettle)
    .from(runs)
    .where(
      and(
        eq(runs.logged, false),
        inArray(runs.status, ["completed", "failed"]),
        inArray(runs.charge, ["none", "released", "refused"]),
      ),
    )
    .orderBy(asc(runs.finishedAt), asc(runs.onChainRunId))
    .limit(context.logBatchSize);
  if (due.length === 0) return 0;
  const records = due.map((run) => ({
    listingId: run.onChainListingId as Hex,
    runId: BigInt(run.onChainRunId),
    succeeded: run.status === "completed",
  }));
  const tx = await chain.send({ functionName: "recordRuns", args: [records] }, () =>
    leadership.leads(),
  );
  if (tx === undefined) return 0;
  const receipt = await chain.receiptOf(tx, context.receiptTimeoutMs);
  if (receipt.status === "reverted") throw new Error(`run log transaction ${tx} reverted`);
  const recorded = recordedRunIds(receipt, chain.marketplace);
  await markLogged(
    db,
    due.map(({ id }) => id),
  );
  // A refused run whose id the chain had settled before: debited after all, by an earlier attempt.
  const settledBefore = due
    .filter((run) => run.charge === "refused" && !recorded.has(BigInt(run.onChainRunId)))
    .map((run) => BigInt(run.onChainRunId));
  const debits = await findDebits(chain, settledBefore);
  const corrected: string[] = [];
  for (const [runId, debit] of debits) corrected.push(...(await markDebited(db, runId, debit)));
  announceChanged(context.bus, corrected);
  log.info("runs logged", {
    tx,
    block: receipt.blockNumber.toString(),
    logged: recorded.size,
    logged_before: due.length - recorded.size,
  });
  return due.length;
}
