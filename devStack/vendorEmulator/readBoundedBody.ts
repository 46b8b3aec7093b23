import type { IncomingMessage } from "node:http";

export type BodyRead = { text: string } | { tooLarge: true };

/**
 * The request's body as text. A body over `limitBytes` is read to its end and dropped, so the
 * client, still sending, gets the 413 rather than a reset connection; memory stays bounded.
 */
export async function readBoundedBody(
  request: IncomingMessage,
  limitBytes: number,
): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limitBytes) chunks.push(chunk);
  }
  if (size > limitBytes) return { tooLarge: true };
  return { text: Buffer.concat(chunks).toString("utf8") };
}
