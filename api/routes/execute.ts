import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { isDatabaseUnavailable } from "../../lib/db/databaseUnavailable.ts";
import { costOf, finalResult } from "../../lib/runLedger/runView.ts";
import { answeredRun } from "../execution/answeredRun.ts";
import { deltaRelay } from "../execution/deltaRelay.ts";
import { executeBody } from "../execution/executeRequest.ts";
import { startExecution } from "../execution/startExecution.ts";
import {
  neverStarted,
  notStartedError,
  stillGoingError,
  stillGoingUnread,
} from "../execution/unanswered.ts";
import { ApiError, errorBody } from "../http/errors.ts";
import { exactJson } from "../http/exactJson.ts";
import { setResponseHeader } from "../http/responseHeader.ts";
import { CHARGING_RULE, EXECUTION_ERRORS } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import type { AppEnv } from "../process/context.ts";

export const executeRoutes = new DescribedRoutes("/v1/execute");

/**
 * The run an execution answer is about, before its body says it (docs/decisions.md, "How does a
 * client learn a streamed run's id?").
 */
const RUN_ID_HEADER = "X-Run-Id";

/** Runs a task and answers once it is finished and, per task, charged. */
executeRoutes.post(
  "/",
  {
    tag: "Execution",
    summary: "Run a task",
    description:
      "Needs a valid rental credential, checked on-chain. A run the agent fails is a 200 with " +
      '`status: "failed"`. ' +
      CHARGING_RULE,
    security: "bearer",
    scope: "run",
    body: executeBody,
    idempotent: true,
    answer: { status: 200, description: "The run's result", schema: answers.runResult },
    errors: EXECUTION_ERRORS,
  },
  async (c, reply) => {
    const started = await startExecution(c);
    setResponseHeader(c, RUN_ID_HEADER, started.runId);
    try {
      const row = await answeredRun(started, leftOrStopping(c), c);
      return reply.exact(c, finalResult(row, started.watch.wholeOutput(row)));
    } finally {
      await started.watch.stop();
    }
  },
);

/**
 * Runs a task as Server-Sent Events: `output` deltas as the agent produces them, then one `done`.
 * The response starts once the run holds a slot, so a run no slot freed for is a 503 like the
 * synchronous one's; from then on it is 200 whatever the run's outcome.
 */
executeRoutes.post(
  "/stream",
  {
    tag: "Execution",
    summary: "Run a task, streaming its output",
    description:
      "Server-Sent Events: `output` events (`{delta}`), then one `done` event with the run's " +
      "result fields (and the partial `output` of a failed run: what was streamed). An `error` " +
      "event carries an error object when the end of the run cannot be told. " +
      CHARGING_RULE,
    security: "bearer",
    scope: "run",
    body: executeBody,
    idempotent: true,
    answer: { status: 200, description: "The event stream", eventStream: true },
    errors: EXECUTION_ERRORS,
  },
  async (c) => {
    const deltas = deltaRelay();
    const { runId, answerDeadline, watch } = await startExecution(c, deltas.onDelta);
    setResponseHeader(c, RUN_ID_HEADER, runId);
    try {
      const started = await watch
        .until("started", {
          deadline: answerDeadline,
          signal: leftOrStopping(c),
        })
        .catch(stillGoingUnread(runId, c));
      if (!started) throw stillGoingError(runId, c);
      if (neverStarted(started)) throw notStartedError(c, started);
    } catch (error) {
      await watch.stop();
      throw error;
    }

    const { streamHeartbeatMs } = c.get("deps").settings;
    return streamSSE(c, async (stream) => {
      const left = new AbortController();
      stream.onAbort(() => left.abort());
      // One write at a time, in order: deltas, heartbeats and the end never interleave.
      let writing: Promise<unknown> = Promise.resolve();
      const write = (text: string) => {
        writing = writing.then(() => stream.write(text));
      };
      const sendDelta = (delta: string) => write(sseEvent("output", JSON.stringify({ delta })));
      deltas.start(sendDelta);
      const heartbeat = setInterval(() => write(": heartbeat\n\n"), streamHeartbeatMs);
      try {
        const row = await watch.until("answered", {
          deadline: answerDeadline,
          signal: AbortSignal.any([left.signal, c.get("deps").stopping]),
        });
        deltas.stop();
        if (left.signal.aborted) return;
        if (!row) {
          write(sseEvent("error", JSON.stringify(errorBody(stillGoingError(runId)))));
          return;
        }
        const stored = watch.wholeOutput(row)?.output ?? row.output;
        const output = outputText(stored);
        const streamed = deltas.streamed();
        // Deltas are notices and may be lost: the output completes what was sent.
        if (row.status === "completed" && output.startsWith(streamed) && output !== streamed) {
          sendDelta(output.slice(streamed.length));
        }
        const done = {
          run_id: row.id,
          status: row.status,
          cost_wei: costOf(row),
          duration_ms: row.durationMs ?? 0,
          ...(row.status === "failed" && { output: partialOutput(stored, streamed) }),
        };
        write(sseEvent("done", exactJson(done)));
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          write(sseEvent("error", JSON.stringify(errorBody(stillGoingError(runId)))));
          return;
        }
        // Headers are sent: the failure can only be told in the stream, without its details.
        c.get("deps").log.error("execution stream failed", {
          request_id: c.get("requestId"),
          run_id: runId,
          error: error instanceof Error ? error.message : String(error),
        });
        const failure = new ApiError("internal_error", `Unexpected error; run ${runId} goes on`);
        write(sseEvent("error", JSON.stringify(errorBody(failure))));
      } finally {
        clearInterval(heartbeat);
        await writing;
        await watch.stop();
      }
    });
  },
);

/** The client left, or the process stops: either way the waiting ends, never the run. */
function leftOrStopping(c: Context<AppEnv>): AbortSignal {
  return AbortSignal.any([c.req.raw.signal, c.get("deps").stopping]);
}

function sseEvent(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

/**
 * What a failed run accumulated: its stored output, unless the stream got further (a run whose
 * worker died is ended by the sweeper, which never saw its deltas).
 */
function partialOutput(stored: unknown, streamed: string): string {
  return typeof stored === "string" && stored.startsWith(streamed) ? stored : streamed;
}

/** A run's output as the text its deltas spell: a string as it is, anything else as JSON. */
function outputText(output: unknown): string {
  if (output === null || output === undefined) return "";
  return typeof output === "string" ? output : JSON.stringify(output);
}
