import { isWebhookMessageId } from "../../lib/ids/randomIds.ts";

/**
 * Where a page of deliveries ends, as `GET /v1/runs` pages: the last one's `created_at` in
 * microseconds since the epoch and its id, the order's tiebreak.
 */
export type DeliveryCursor = { createdAtMicros: bigint; id: string };

const CURSOR_TEXT = /^(\d{1,16})\.(msg_[0-9a-f]{24})$/;

export function encodeDeliveryCursor({ createdAtMicros, id }: DeliveryCursor): string {
  return Buffer.from(`${createdAtMicros}.${id}`).toString("base64url");
}

export function decodeDeliveryCursor(cursor: string): DeliveryCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!match?.[1] || !match[2] || !isWebhookMessageId(match[2])) return undefined;
  return { createdAtMicros: BigInt(match[1]), id: match[2] };
}
