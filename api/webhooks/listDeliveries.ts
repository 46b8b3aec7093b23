import { and, desc, eq, sql } from "drizzle-orm";
import { webhookDeliveries } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { encodeDeliveryCursor } from "./deliveryCursor.ts";
import type { DeliveryListQuery } from "./webhookRequests.ts";

const { createdAt, id, status, leaseUntil } = webhookDeliveries;

/**
 * A page of an endpoint's deliveries, newest first (keyset on `created_at`, then id, as runs page),
 * and the cursor of the next page or null at the end: each one's event, attempts and where it
 * stands, never its body. A delivery whose attempt was claimed by a process that has since died
 * shows `pending`: the next process to look takes it.
 */
export async function listDeliveries(db: Database, endpointId: string, query: DeliveryListQuery) {
  const conditions = [eq(webhookDeliveries.endpointId, endpointId)];
  if (query.cursor) {
    const { createdAtMicros, id: lastId } = query.cursor;
    conditions.push(
      sql`(${createdAt}, ${id}) < (timestamptz 'epoch' + ${createdAtMicros.toString()}::bigint * interval '1 microsecond', ${lastId})`,
    );
  }
  const rows = await db
    .select({
      id,
      type: webhookDeliveries.type,
      status: sql<string>`case when ${status} = 'sending' and ${leaseUntil} <= now() then 'pending' else ${status} end`,
      attempts: webhookDeliveries.attempts,
      lastResponseStatus: webhookDeliveries.lastResponseStatus,
      lastError: webhookDeliveries.lastError,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      deliveredAt: webhookDeliveries.deliveredAt,
      createdAt,
      createdAtMicros: sql<string>`(extract(epoch from ${createdAt}) * 1000000)::bigint::text`,
    })
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(desc(createdAt), desc(id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    deliveries: page.map((row) => ({
      id: row.id,
      type: row.type,
      status: row.status,
      attempts: row.attempts,
      last_response_status: row.lastResponseStatus,
      last_error: row.lastError,
      next_attempt_at: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
      delivered_at: row.deliveredAt?.toISOString() ?? null,
      created_at: row.createdAt.toISOString(),
    })),
    next_cursor:
      rows.length > query.limit && last
        ? encodeDeliveryCursor({ createdAtMicros: BigInt(last.createdAtMicros), id: last.id })
        : null,
  };
}
