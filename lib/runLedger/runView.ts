import type { Hex } from "viem";
import type { RunRow } from "../db/appSchema.ts";
import { toApiListingId } from "../ids/listingId.ts";
import type { RunAnswer } from "./notices.ts";

type Ended = "completed" | "failed";

/** A run whose answer is final. */
export type AnsweredRun = RunAnswer & { status: Ended };

/**
 * True once the run's answer is final and will not change: ended and, per task, its reservation
 * released, debited or refused the debit. A run that delivered output and is still being debited is
 * not: its answer says what was charged. (Migration 0019's `run_answered` trigger says the same.)
 */
export function isAnswered<Row extends Pick<RunRow, "status" | "charge">>(
  row: Row,
): row is Row & { status: Ended } {
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

/** A run's result at any point (`cost_wei` a bigint, for `exactJson`). */
export type RunResult = {
  run_id: string;
  agent_id: string;
  status: RunRow["status"];
  output: unknown;
  cost_wei: bigint;
  duration_ms: number | null;
  output_truncated?: true;
  output_sha256?: string;
};

/** The result of a run whose answer is final, as `POST /v1/execute` answers it. */
export type FinalResult = RunResult & { status: Ended; duration_ms: number };

/**
 * The result of `GET /v1/runs/:run_id`. Until the answer is final the run is `waiting`, `queued` or
 * `running` (an ended run awaiting its debit is still `running`), with no output or duration yet.
 */
export function runResult(row: RunAnswer): RunResult {
  if (isAnswered(row)) return finalResult(row);
  return {
    run_id: row.id,
    agent_id: toApiListingId(row.onChainListingId as Hex),
    status: apiRunStatus(row),
    output: null,
    cost_wei: costOf(row),
    duration_ms: null,
  };
}

/**
 * An answered run's result. `whole`: the whole output of a run whose row keeps a cut copy, when the
 * answering process received it.
 */
export function finalResult(row: AnsweredRun, whole?: { output: unknown }): FinalResult {
  const cutCopy = row.outputTruncated && whole === undefined ? row.outputSha256 : null;
  return {
    run_id: row.id,
    agent_id: toApiListingId(row.onChainListingId as Hex),
    status: row.status,
    output: whole ? whole.output : (row.output ?? null),
    cost_wei: costOf(row),
    duration_ms: row.durationMs ?? 0,
    // The stored copy of a longer output: its first part, and the whole one's SHA-256.
    ...(cutCopy !== null && { output_truncated: true, output_sha256: cutCopy }),
  };
}

/** A run as `GET /v1/runs/:run_id` shows it: its result, and why a failed one failed. */
export function runView(row: RunAnswer): RunResult & { failure?: string } {
  const result = runResult(row);
  return { ...result, ...(result.status === "failed" && { failure: row.failure ?? "" }) };
}

/** The status the API shows: an ended run whose answer is not final yet is still `running`. */
export function apiRunStatus(row: Pick<RunRow, "status" | "charge">): RunRow["status"] {
  return isAnswered(row) || !isEnded(row) ? row.status : "running";
}

const isEnded = (row: Pick<RunRow, "status">) =>
  row.status === "completed" || row.status === "failed";
