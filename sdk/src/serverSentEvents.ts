import { EventSourceParserStream } from "eventsource-parser/stream";
import { describedError, ServiceConnectionError, serviceError } from "./errors.ts";

/** One event of a stream: its name (none for a plain message) and its data. */
export type ServerSentEvent = { event?: string | undefined; data: string };

/**
 * The server-sent events of `response` until it ends, or until the signal aborts (then they just
 * end: the caller says what an abort means). An `error` event is thrown as the error it carries; a
 * connection that breaks off as a `ServiceConnectionError`.
 */
export async function* serverSentEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<ServerSentEvent, void, undefined> {
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
      const next = await reader.read().catch((error: unknown) => {
        if (signal?.aborted) return { done: true as const, value: undefined };
        throw new ServiceConnectionError("The stream broke off", { cause: error });
      });
      if (next.done || signal?.aborted) return;
      if (next.value.event === "error") {
        throw serviceError({ ...describedError(next.value.data, 500), requestId }, undefined);
      }
      yield next.value;
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    cancel();
  }
}
