import type { Context } from "hono";
import type { RunRow } from "../../lib/db/appSchema.ts";
import { isDatabaseUnavailable } from "../../lib/db/databaseUnavailable.ts";
import { RUN_NOT_HANDED_OVER, refusedBeforeStart } from "../../lib/runLedger/runNotStarted.ts";
import { ApiError } from "../http/errors.ts";
import { EXECUTION_RETRY_AFTER_SECONDS } from "../limits.ts";

/** True when the run was refused before it started: it was never served, so it is no answer. */
export function neverStarted(row: Pick<RunRow, "status" | "failure">): boolean {
  return row.status === "failed" && refusedBeforeStart(row.failure);
}

/** The 503 for a run refused before it started, as its `failure` says why. */
export function notStartedError(c: Context | undefined, row: Pick<RunRow, "failure">): ApiError {
  return row.failure === RUN_NOT_HANDED_OVER ? notHandedOverError(c) : noSlotError(c);
}

/**
 * 503 for an execution to retry shortly. With `c`, the response's `Retry-After` says when (not once
 * a stream has sent its headers).
 */
export function retryShortlyError(c: Context | undefined, message: string, cause?: unknown) {
  c?.header("Retry-After", String(EXECUTION_RETRY_AFTER_SECONDS));
  return new ApiError("service_unavailable", message, { cause });
}

/** 503 for a run the workers could not be reached for in time: nothing ran or was charged. */
export function notHandedOverError(c?: Context): ApiError {
  return retryShortlyError(
    c,
    "The run could not be handed to the workers in time. Nothing was charged; retry shortly",
  );
}

/** 503 for a run that no slot freed for: nothing ran, nothing was charged; a retry may find one. */
function noSlotError(c?: Context): ApiError {
  return retryShortlyError(
    c,
    "The agent is busy: no run slot freed in time. Nothing was charged; retry shortly",
  );
}

/** 503 for an execution that reaches a process as it stops: nothing was admitted; a retry may go on. */
export function stoppingError(c?: Context): ApiError {
  return retryShortlyError(
    c,
    "The server is restarting: nothing was run or charged; retry shortly",
  );
}

/** 503 for a run still going past the time its answer was due; it goes on and is kept. */
export function stillGoingError(runId: string, c?: Context, cause?: unknown): ApiError {
  return retryShortlyError(
    c,
    `Run ${runId} is still going; its result will be at GET /v1/runs/${runId}`,
    cause,
  );
}

/**
 * For a run whose row could not be read (the database did not answer): it goes on regardless, so
 * the answer is the one past its answer's time, naming the run. Anything else is rethrown.
 */
export function stillGoingUnread(runId: string, c?: Context) {
  return (error: unknown): never => {
    if (isDatabaseUnavailable(error)) throw stillGoingError(runId, c, error);
    throw error;
  };
}
