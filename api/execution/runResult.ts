import type { Hex } from "viem";
import type { runs } from "../../lib/db/appSchema.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";

export type RunRow = typeof runs.$inferSelect;

/**
 * True once the run's answer is final and will not change: failed, or completed and, per task,
 * debited or refused the debit. A completed per-task run still reserved or being debited is not.
 */
export function isAnswered(row: Pick<RunRow, "status" | "charge">): boolean {
  if (row.status === "failed") return true;
  return row.status === "completed" && row.charge !== "reserved" && row.charge !== "debit_pending";
}

/** What was charged for the run, in wei: only a debit charges. */
export function costOf(row: Pick<RunRow, "charge" | "costWei">): bigint {
  return row.charge === "debited" ? BigInt(row.costWei) : 0n;
}

/**
 * The run result of `POST /v1/execute` and `GET /v1/runs/:run_id` (`cost_wei` a bigint, for
 * `exactJson`). Until the answer is final the run is `waiting`, `queued` or `running` (a completed
 * run awaiting its debit is still `running`), with no output, cost or duration yet.
 */
export function runResult(row: RunRow) {
  const answered = isAnswered(row);
  return {
    run_id: row.id,
    agent_id: toApiListingId(row.onChainListingId as Hex),
    status: answered ? row.status : row.status === "completed" ? "running" : row.status,
    output: answered ? (row.output ?? null) : null,
    cost_wei: answered ? costOf(row) : 0n,
    duration_ms: answered ? (row.durationMs ?? 0) : null,
  };
}
