import { EventSourceParserStream } from "eventsource-parser/stream";
import { describedError, ServiceConnectionError, serviceError } from "./errors.ts";
import { parseExactJson } from "./exactJson.ts";
import type { ExecuteStreamEvent } from "./types.ts";

/**
 * The typed events of an execution stream, ending with `done`. An `error` event (the API could not
 * tell the run's end) is thrown as the error it carries; a stream that ends without `done` as a
 * `ServiceConnectionError`, which says the run may still be going (see `runs.get`).
 */
export async function* executeStreamEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<ExecuteStreamEvent, void, undefined> {
  if (!response.body) throw new ServiceConnectionError("The stream has no body");
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const cancel = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await readOrAbort(reader, signal);
      if (done) break;
      if (value.event === "error") {
        throw serviceError({ ...describedError(value.data, 500), requestId }, undefined);
      }
      if (value.event !== "output" && value.event !== "done") continue;
      const event = { event: value.event, data: parseExactJson(value.data) } as ExecuteStreamEvent;
      yield event;
      if (event.event === "done") return;
    }
    throw new ServiceConnectionError("The stream ended before its done event; the run may go on");
  } finally {
    signal?.removeEventListener("abort", cancel);
    cancel();
  }
}

async function readOrAbort<T>(reader: ReadableStreamDefaultReader<T>, signal?: AbortSignal) {
  const next = await reader.read().catch((error: unknown) => {
    throw signal?.aborted
      ? signal.reason
      : new ServiceConnectionError("The stream broke off", { cause: error });
  });
  if (signal?.aborted) throw signal.reason;
  return next;
}
