import { sql } from "drizzle-orm";
import type { Database } from "../db/projections.ts";
import type { WebhookEvent } from "./webhookEvents.ts";

export type WebhookNotice = {
  /** Whose endpoints hear of it: the renter, or the listing's creator. */
  wallet: string;
  type: WebhookEvent;
  /** What the event is about, so that it is enqueued once per endpoint however often it is seen. */
  eventKey: string;
  /** The body's `data` (amounts in wei as decimal strings: JSON.stringify writes it). */
  data: Record<string, unknown>;
};

/**
 * Enqueues `notice` for every endpoint of its wallet subscribed to its type, in the caller's
 * transaction (`app.enqueue_webhook`, migration 0019: once per endpoint and key, none for an
 * endpoint whose pending deliveries are at their bound); answers how many deliveries it enqueued.
 */
export async function enqueueWebhook(
  db: Pick<Database, "execute">,
  { wallet, type, eventKey, data }: WebhookNotice,
): Promise<number> {
  const [row] = await db.execute<{ enqueued: number }>(sql`
    select app.enqueue_webhook(${wallet.toLowerCase()}, ${type}, ${eventKey}, null,
      ${JSON.stringify(data)}) as enqueued`);
  return Number(row?.enqueued ?? 0);
}
