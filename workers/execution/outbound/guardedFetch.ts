import { type GuardedRequestOptions, guardedRequest } from "./guardedRequest.ts";
import { OutboundFailure } from "./outboundFailure.ts";

/** Statuses whose response has no body: `Response` refuses one for them. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * A `fetch` that sends every request through the outbound guard (`guardedRequest`): HTTPS only,
 * the resolved address checked and pinned, no redirect followed, the answer capped, `init.signal`
 * honoured, before and while the body streams. It is what a client taking a `fetch` (the official
 * `openai` one) is given to reach an address someone outside gave us.
 *
 * Only GET and POST are sent, asking for answers uncompressed (a compressed one fails). A refusal or failure of the guard rejects with its `OutboundFailure`
 * (words fit for the renter; a client wraps it as the `cause` of its connection error); an abort
 * rejects, and errors the body, with the signal's reason, as `fetch` does.
 */
export function guardedFetch(options: GuardedRequestOptions): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const { method, signal } = request;
    if (method !== "GET" && method !== "POST") {
      throw new OutboundFailure(`a ${method} request is not sent to an endpoint`);
    }
    signal.throwIfAborted();
    const body = method === "POST" ? new Uint8Array(await request.arrayBuffer()) : undefined;
    let answer: Awaited<ReturnType<typeof guardedRequest>>;
    try {
      answer = await guardedRequest(
        request.url,
        {
          method,
          // Answers come as sent: a compressed one would pass the size cap and grow past it.
          headers: { ...Object.fromEntries(request.headers), "accept-encoding": "identity" },
          body,
          signal,
        },
        options,
      );
    } catch (error) {
      signal.throwIfAborted();
      throw error;
    }
    const encoding = answer.headers["content-encoding"] ?? "identity";
    if (encoding.toLowerCase() !== "identity") {
      answer.close();
      throw new OutboundFailure("the endpoint answered compressed, which was not asked for");
    }
    if (answer.status < 200 || answer.status > 599) {
      answer.close();
      throw new OutboundFailure(`the endpoint answered with status ${answer.status}`);
    }
    const nullBody = NULL_BODY_STATUSES.has(answer.status);
    if (nullBody) answer.close();
    const response = new Response(nullBody ? null : streamOf(answer.body, signal), {
      status: answer.status,
      headers: answer.headers,
    });
    Object.defineProperty(response, "url", { value: request.url });
    return response;
  };
}

/** `chunks` as a web stream: cancelling it closes the connection; an abort errors it with its reason. */
function streamOf(chunks: AsyncIterable<Buffer>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value));
      } catch (error) {
        controller.error(signal.aborted ? signal.reason : error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
