import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { RunAnswer } from "../../lib/runLedger/notices.ts";
import { finalResult } from "../../lib/runLedger/runView.ts";
import { deltaRelay } from "../execution/deltaRelay.ts";
import { admitExecution, type ExecutionRequest } from "../execution/startExecution.ts";
import {
  neverStarted,
  notStartedError,
  stillGoingError,
  stillGoingUnread,
} from "../execution/unanswered.ts";
import { exactJson } from "../http/exactJson.ts";
import type { AppEnv } from "../process/context.ts";
import { type RpcId, rpcErrorBody } from "./a2aRpc.ts";
import { OUTPUT_ARTIFACT_ID, outputParts, runMetadata, taskOf, taskStatus } from "./a2aTasks.ts";

/**
 * `message/stream`: once the run holds a slot, Server-Sent Events of JSON-RPC answers to request
 * `id`: the task, each output delta as an appended text chunk of the output artifact, the whole
 * output when it is an object (text is whole from its chunks), then the final status. A refusal
 * before the slot is one JSON-RPC error, as `message/send` answers it.
 */
export async function streamTask(c: Context<AppEnv>, id: RpcId, request: ExecutionRequest) {
  const deltas = deltaRelay();
  const { runId, answerDeadline, watch } = await admitExecution(c.get("deps"), request, {
    answer: c,
    onDelta: deltas.onDelta,
  });
  let started: RunAnswer;
  try {
    const row = await watch
      .until("started", { deadline: answerDeadline, signal: c.req.raw.signal })
      .catch(stillGoingUnread(runId, c));
    if (!row) throw stillGoingError(runId, c);
    if (neverStarted(row)) throw notStartedError(c, row);
    started = row;
  } catch (error) {
    await watch.stop();
    throw error;
  }

  return streamSSE(c, async (stream) => {
    const left = new AbortController();
    stream.onAbort(() => left.abort());
    let writing: Promise<unknown> = Promise.resolve();
    const send = (result: unknown) => {
      const data = exactJson({ jsonrpc: "2.0", id, result });
      writing = writing.then(() => stream.writeSSE({ data }));
    };
    const chunk = (parts: unknown[], append: boolean, lastChunk: boolean) =>
      send({
        kind: "artifact-update",
        taskId: runId,
        contextId: runId,
        artifact: { artifactId: OUTPUT_ARTIFACT_ID, name: "output", parts },
        append,
        lastChunk,
      });
    send(taskOf(started));
    let appended = false;
    deltas.start((delta) => {
      chunk([{ kind: "text", text: delta }], appended, false);
      appended = true;
    });
    try {
      const row = await watch.until("answered", {
        deadline: answerDeadline,
        signal: AbortSignal.any([left.signal, c.get("deps").stopping]),
      });
      deltas.stop();
      if (left.signal.aborted) return;
      if (!row) {
        writing = writing.then(() =>
          stream.writeSSE({ data: JSON.stringify(rpcErrorBody(id, stillGoingError(runId))) }),
        );
        return;
      }
      const parts = outputParts(finalResult(row, watch.wholeOutput(row)).output);
      const text = parts[0]?.kind === "text" ? parts[0].text : undefined;
      const streamed = deltas.streamed();
      if (text?.startsWith(streamed)) {
        // The deltas spelled the start of it: the rest, as the last chunk.
        chunk([{ kind: "text", text: text.slice(streamed.length) }], appended, true);
      } else if (parts.length > 0) {
        chunk(parts, false, true);
      }
      send({
        kind: "status-update",
        taskId: runId,
        contextId: runId,
        status: taskStatus(row),
        final: true,
        metadata: runMetadata(row),
      });
    } finally {
      deltas.stop();
      await writing;
      await watch.stop();
    }
  });
}
