import type { Hex } from "viem";
import type { RunRow } from "../db/appSchema.ts";
import { toApiListingId } from "../ids/listingId.ts";
import type { RunAnswer } from "./notices.ts";

/**
 * True once the run's answer is final and will not change: ended and, per task, its reservation
 * released, debited or refused the debit. A run that delivered output and is still being debited is
 * not: its answer says what was charged. (Migration 0019's `run_answered` trigger says the same.)
 */
export function isAnswered(row: Pick<RunRow, "status" | "charge">): boolean {
  return isEnded(row) && row.charge !== "reserved" && row.charge !== "debit_pending";
}

/**
 * What the run was or will be charged, in wei: a debit's price; for a run awaiting its debit, the
 * price held at admission (the debit charges that, or the current price if lower); else nothing.
 */
export function costOf(row: Pick<RunRow, "charge" | "costWei" | "reservedWei">): bigint {
  if (row.charge === "debited") return BigInt(row.costWei);
  return row.charge === "debit_pending" ? BigInt(row.reservedWei) : 0n;
}

/**
 * The run result of `POST /v1/execute` and `GET /v1/runs/:run_id` (`cost_wei` a bigint, for
 * `exactJson`). Until the answer is final the run is `waiting`, `queued` or `running` (an ended
 * run awaiting its debit is still `running`), with no output or duration yet. `whole`: the whole
 * output of a run whose row keeps a cut copy, when the answering process received it.
 */
export function runResult(row: RunAnswer, whole?: { output: unknown }) {
  const answered = isAnswered(row);
  const cut = answered && row.outputTruncated && whole === undefined;
  return {
    run_id: row.id,
    agent_id: toApiListingId(row.onChainListingId as Hex),
    status: apiRunStatus(row),
    output: answered ? (whole ? whole.output : (row.output ?? null)) : null,
    cost_wei: costOf(row),
    duration_ms: answered ? (row.durationMs ?? 0) : null,
    // The stored copy of a longer output: its first part, and the whole one's SHA-256.
    ...(cut && { output_truncated: true, output_sha256: row.outputSha256 }),
  };
}

/** A run as `GET /v1/runs/:run_id` shows it: its result, and why a failed one failed. */
export function runView(row: RunAnswer) {
  const result = runResult(row);
  return { ...result, ...(result.status === "failed" && { failure: row.failure ?? "" }) };
}

/** The status the API shows: an ended run whose answer is not final yet is still `running`. */
export function apiRunStatus(row: Pick<RunRow, "status" | "charge">): RunRow["status"] {
  return isAnswered(row) || !isEnded(row) ? row.status : "running";
}

const isEnded = (row: Pick<RunRow, "status">) =>
  row.status === "completed" || row.status === "failed";
