import { ServiceAPIError, ServiceConnectionError } from "./errors.ts";
import { parseExactJson } from "./exactJson.ts";
import { serverSentEvents } from "./serverSentEvents.ts";
import type { ExecuteStreamEvent } from "./types.ts";

/**
 * The typed events of an execution stream, ending with `done`. An `error` event (the API could not
 * tell the run's end) is thrown as the error it carries; a stream that ends without `done` as a
 * `ServiceConnectionError`, which says the run may still be going (see `runs.get`); an abort as the
 * signal's reason.
 */
export async function* executeStreamEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<ExecuteStreamEvent, void, undefined> {
  for await (const { event, data } of serverSentEvents(response, signal)) {
    if (event !== "output" && event !== "done") continue;
    const typed = { event, data: parseExactJson(data) } as ExecuteStreamEvent;
    yield typed;
    if (typed.event === "done") return;
  }
  if (signal?.aborted) throw signal.reason;
  throw new ServiceConnectionError("The stream ended before its done event; the run may go on");
}

/**
 * An execution stream that reattaches once to its run when the stream breaks before `done` (the
 * connection cut, or the API process answering it stopped): `open` sends the same request under the
 * same Idempotency-Key, which the API answers with the same run's stream. That stream tells the
 * output from its start again: what was yielded already is skipped, so the deltas spell the output
 * once. Should it tell another text (a structured output's JSON, where the deltas were prose), its
 * deltas are dropped rather than mixed in, and `done` still ends it. Every error carries the key.
 */
export async function* reattachingExecuteStream(
  open: () => Promise<Response>,
  idempotencyKey: string,
  signal?: AbortSignal,
): AsyncGenerator<ExecuteStreamEvent, void, undefined> {
  let yielded = "";
  for (let reattached = false; ; reattached = true) {
    // A stream that cannot be opened was retried by the transport already.
    const response = await open();
    /** Characters of output this stream has told; past `yielded.length`, they are new. */
    let told = 0;
    let diverged = false;
    try {
      for await (const event of executeStreamEvents(response, signal)) {
        if (event.event === "done") {
          yield event;
          return;
        }
        const { delta } = event.data;
        const repeated = Math.max(0, Math.min(delta.length, yielded.length - told));
        diverged ||= delta.slice(0, repeated) !== yielded.slice(told, told + repeated);
        told += delta.length;
        const fresh = delta.slice(repeated);
        if (diverged || fresh === "") continue;
        yielded += fresh;
        yield { event: "output", data: { delta: fresh } };
      }
    } catch (error) {
      if (error instanceof ServiceAPIError) error.idempotencyKey = idempotencyKey;
      if (reattached || signal?.aborted || !brokeOff(error)) throw error;
    }
  }
}

/** A stream that ended before `done` with its run going on: cut, or its API process stopping. */
function brokeOff(error: unknown): boolean {
  return (
    error instanceof ServiceConnectionError ||
    (error instanceof ServiceAPIError && error.code === "service_unavailable")
  );
}
