import { and, eq, isNull } from "drizzle-orm";
import type { Hex, TransactionReceipt } from "viem";
import { runs } from "../../lib/db/appSchema.ts";
import {
  settlementBatches,
  settlementBatchRuns,
  settlementGasUsed,
} from "../../lib/metrics/metrics.ts";
import { metricsOn } from "../../lib/metrics/metricsOn.ts";
import { announceChanged, announceDebited } from "../../lib/runLedger/announce.ts";
import {
  clearSubmission,
  type Debit,
  markDebited,
  markRefused,
  runToSettle,
} from "../../lib/runLedger/markRuns.ts";
import { debitOutcomes } from "./debitOutcomes.ts";
import type { RunToFind } from "./findDebits.ts";
import { refusalName } from "./refusalName.ts";
import type { SettlementContext } from "./settlementContext.ts";
import { settleRecordedRuns } from "./settleRecordedRuns.ts";

/**
 * Moves the runs `tx` carried on by its mined receipt: each debited (at the `QueryConsumed` price, in
 * its block) or refused (skipped for a reason, uncharged, still to be logged). A run skipped as
 * already settled was debited by an earlier transaction, found by its logs, or is set aside
 * (`settleRecordedRuns`). A reverted transaction changed nothing: its runs go into the next batch.
 * `runsSent`, when known, is how many runs `tx` carried: when it debited them all, nothing is left
 * to look at.
 */
export async function applyDebitReceipt(
  context: SettlementContext,
  receipt: TransactionReceipt,
  tx: Hex,
  runsSent?: number,
): Promise<void> {
  const { db, chain, log } = context;
  if (metricsOn()) {
    settlementBatches.inc({ outcome: receipt.status === "reverted" ? "reverted" : "mined" });
    settlementGasUsed.inc(Number(receipt.gasUsed));
  }
  if (receipt.status === "reverted") {
    await clearSubmission(db, tx);
    log.warn("debit batch reverted; its runs go into the next batch", { tx });
    return;
  }
  const outcomes = debitOutcomes(receipt, chain.marketplace);
  const debits = new Map<bigint, Debit>();
  for (const [runId, outcome] of outcomes) if (outcome.debited) debits.set(runId, outcome);
  const debited = await markDebited(db, debits);
  if (metricsOn()) settlementBatchRuns.observe(debited.length);
  announceDebited(context.bus, debited);
  const refused: string[] = [];
  const carried =
    debited.length === runsSent
      ? []
      : await db
          .select(runToSettle)
          .from(runs)
          .where(
            and(eq(runs.debitTx, tx), eq(runs.charge, "debit_pending"), isNull(runs.quarantinedAt)),
          );
  const settledBefore: RunToFind[] = [];
  const unanswered: bigint[] = [];
  const refusals: Record<string, number> = {};
  for (const run of carried) {
    const runId = BigInt(run.onChainRunId);
    const outcome = outcomes.get(runId);
    if (outcome === undefined) unanswered.push(runId);
    else if (outcome.debited) continue;
    else if (refusalName(outcome.reason) === "RunAlreadyRecorded") settledBefore.push(run);
    else {
      refused.push(...(await markRefused(db, runId, tx)));
      const reason = refusalName(outcome.reason);
      refusals[reason] = (refusals[reason] ?? 0) + 1;
    }
  }
  const debitedBefore = await settleRecordedRuns(context, settledBefore, receipt.blockNumber);
  announceDebited(context.bus, debitedBefore);
  if (unanswered.length > 0) {
    // Not in this receipt's logs at all: it changed nothing for them, so they are sent again.
    await clearSubmission(db, tx, unanswered);
    log.warn("debit batch left runs unanswered; they go into the next batch", {
      tx,
      runs: unanswered.length,
    });
  }
  announceChanged(context.bus, refused);
  log.info("debit batch settled", {
    tx,
    block: receipt.blockNumber.toString(),
    gas_used: receipt.gasUsed.toString(),
    debited: debited.length,
    refused: refusals,
  });
}
