import { ServiceConnectionError } from "./errors.ts";
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
