import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { StreamEvent } from "./protocolAdapter.ts";
import type { ReplyTiming } from "./scriptedReply.ts";

/**
 * A JSON answer. With `cutAfterChunks` set, only the headers and half the body are sent before the
 * connection is destroyed: a non-streamed answer's version of a stream cut mid-way.
 */
export function sendJson(
  response: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  body: unknown,
  cutAfterChunks?: number,
): void {
  const text = Buffer.from(JSON.stringify(body));
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": text.length,
  });
  if (cutAfterChunks === undefined) {
    response.end(text);
    return;
  }
  response.write(text.subarray(0, Math.floor(text.length / 2)), () => response.destroy());
}

/**
 * Server-sent events, `chunkDelayMs` apart between pieces of the answer. With `cutAfterChunks`
 * set, the connection is destroyed once that many pieces (or all there are) are out, before the
 * next event that is not part of the stream's opening (the events before its first piece, or its
 * first event when it has none).
 */
export async function sendEvents(
  response: ServerResponse,
  headers: OutgoingHttpHeaders,
  events: StreamEvent[],
  { chunkDelayMs, cutAfterChunks }: ReplyTiming,
  clientGone: AbortSignal,
): Promise<void> {
  response.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  });
  response.flushHeaders();

  const firstPiece = events.findIndex((event) => event.carriesContent);
  const lastPiece = events.findLastIndex((event) => event.carriesContent);
  const openingLength = Math.max(1, firstPiece);
  let piecesSent = 0;
  for (const [index, event] of events.entries()) {
    if (clientGone.aborted) return;
    const cutDue = piecesSent >= (cutAfterChunks ?? 0) || index > lastPiece;
    if (cutAfterChunks !== undefined && index >= openingLength && cutDue) {
      response.destroy();
      return;
    }
    if (event.carriesContent && piecesSent > 0 && chunkDelayMs) {
      await sleep(chunkDelayMs, undefined, { signal: clientGone });
    }
    const eventLine = event.event === undefined ? "" : `event: ${event.event}\n`;
    // Waiting for each write to reach the socket keeps a later cut from dropping it.
    await new Promise((written) => response.write(`${eventLine}data: ${event.data}\n\n`, written));
    if (event.carriesContent) piecesSent += 1;
  }
  response.end();
}
