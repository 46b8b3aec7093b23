import type { Context } from "hono";
import type { AnsweredRun } from "../../lib/runLedger/runView.ts";
import type { StartedExecution } from "./startExecution.ts";
import { neverStarted, notStartedError, stillGoingError, stillGoingUnread } from "./unanswered.ts";

/**
 * The started run's final answer. Past its answer's deadline, or once `signal` ends the waiting
 * (the client left, the process stops), the 503 naming the run, which goes on: it finishes, is
 * charged iff output reached the renter, and is kept for GET /v1/runs/:run_id. A run refused before
 * it started is its 503. With `c`, the response's `Retry-After` says when to retry.
 */
export async function answeredRun(
  { runId, answerDeadline, watch }: StartedExecution,
  signal: AbortSignal,
  c?: Context,
): Promise<AnsweredRun> {
  const row = await watch
    .until("answered", { deadline: answerDeadline, signal })
    .catch(stillGoingUnread(runId, c));
  if (!row) throw stillGoingError(runId, c);
  if (neverStarted(row)) throw notStartedError(c, row);
  return row;
}
