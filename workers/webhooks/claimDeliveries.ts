import { sql } from "drizzle-orm";
import type { Database } from "../../lib/db/projections.ts";
import type { WebhookEvent } from "../../lib/webhooks/webhookEvents.ts";

/** A delivery this process holds the lease of, with its endpoint: one attempt to make. */
export type ClaimedDelivery = {
  id: string;
  type: WebhookEvent;
  runId: string | null;
  data: string | null;
  occurredAt: Date;
  /** Attempts so far, this one included. */
  attempts: number;
  createdAt: Date;
  endpoint: { id: string; url: string; secret: Buffer; sealingKeyId: string };
};

/** Due: pending past its time, or claimed by a process whose lease lapsed (it died mid-attempt). */
const due = (alias: string) =>
  sql.raw(
    `((${alias}.status = 'pending' and ${alias}.next_attempt_at <= now()) or (${alias}.status = 'sending' and ${alias}.lease_until <= now()))`,
  );

/**
 * Claims up to `limit` due deliveries for `leaseMs`, at most `perEndpoint` of an endpoint's in
 * flight across every process: the endpoints are locked (`skip locked`: one another process holds
 * is left to it) before their deliveries in flight are counted, so two processes never both claim
 * an endpoint's last free place. A claim counts as an attempt: a process that dies during it may
 * have reached the endpoint.
 */
export async function claimDeliveries(
  db: Database,
  { limit, perEndpoint, leaseMs }: { limit: number; perEndpoint: number; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  return db.transaction(async (tx) => {
    const waiting = await tx.execute<{ endpoint_id: string }>(sql`
      select endpoint_id from (
        (select endpoint_id, next_attempt_at as due_at from app.webhook_deliveries
          where status = 'pending' and next_attempt_at <= now() order by next_attempt_at limit 1000)
        union all
        (select endpoint_id, lease_until from app.webhook_deliveries
          where status = 'sending' and lease_until <= now() order by lease_until limit 1000)
      ) waiting
      group by endpoint_id order by min(due_at) limit ${limit}`);
    if (waiting.length === 0) return [];
    const endpoints = await tx.execute<{
      id: string;
      url: string;
      secret: Buffer;
      sealing_key_id: string;
    }>(sql`
      select id, url, secret, sealing_key_id from app.webhook_endpoints
      where id in ${waiting.map(({ endpoint_id }) => endpoint_id)}
      for update skip locked`);
    if (endpoints.length === 0) return [];
    const claimed = await tx.execute<{
      id: string;
      endpoint_id: string;
      type: WebhookEvent;
      run_id: string | null;
      data: string | null;
      occurred_at: Date;
      attempts: number;
      created_at: Date;
    }>(sql`
      update app.webhook_deliveries d
      set status = 'sending', attempts = d.attempts + 1,
        lease_until = now() + ${leaseMs}::int * interval '1 millisecond'
      from (
        select picked.id from app.webhook_endpoints e
        cross join lateral (
          select x.id from app.webhook_deliveries x
          where x.endpoint_id = e.id and x.status in ('pending', 'sending') and ${due("x")}
          order by x.next_attempt_at, x.id
          limit greatest(0, ${perEndpoint}::int - (
            select count(*) from app.webhook_deliveries f
            where f.endpoint_id = e.id and f.status = 'sending' and f.lease_until > now()))
        ) picked
        where e.id in ${endpoints.map(({ id }) => id)}
        limit ${limit}
      ) claim
      where d.id = claim.id and ${due("d")}
      returning d.id, d.endpoint_id, d.type, d.run_id, d.data, d.occurred_at, d.attempts, d.created_at`);
    const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
    return claimed.map((row) => {
      const endpoint = byId.get(row.endpoint_id) as (typeof endpoints)[number];
      return {
        id: row.id,
        type: row.type,
        runId: row.run_id,
        data: row.data,
        occurredAt: new Date(row.occurred_at),
        attempts: row.attempts,
        createdAt: new Date(row.created_at),
        endpoint: {
          id: endpoint.id,
          url: endpoint.url,
          secret: endpoint.secret,
          sealingKeyId: endpoint.sealing_key_id,
        },
      };
    });
  });
}
