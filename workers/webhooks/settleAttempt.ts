import { sql } from "drizzle-orm";
import type { Database } from "../../lib/db/projections.ts";
import type { ClaimedDelivery } from "./claimDeliveries.ts";
import { RETRY_WINDOW_MS, retryDelayMs } from "./retrySchedule.ts";
import type { AttemptOutcome } from "./sendDelivery.ts";

/** What became of a delivery after an attempt, as the metrics count it. */
export type Settled = "delivered" | "retried" | "failed";

/**
 * Writes an attempt's outcome, if this process still holds the claim (no other process took the
 * delivery over after its lease lapsed): delivered; or tried again `retryDelayMs` later unless that
 * falls past its 24 hours, when it is given up; or given up at once, refused by the outbound rules.
 * `data` is kept, so every later attempt sends the same body. Undefined when the claim was lost.
 */
export async function settleAttempt(
  db: Database,
  delivery: Pick<ClaimedDelivery, "id" | "attempts">,
  outcome: AttemptOutcome,
  { data, retryBaseMs }: { data: string; retryBaseMs: number },
): Promise<Settled | undefined> {
  const delayMs = retryDelayMs(delivery.attempts, retryBaseMs);
  const retryable = outcome.kind === "failed";
  const next = sql`now() + ${delayMs}::int * interval '1 millisecond'`;
  const status =
    outcome.kind === "delivered"
      ? sql`'delivered'`
      : retryable
        ? sql`case when created_at + ${RETRY_WINDOW_MS}::bigint * interval '1 millisecond' < ${next} then 'failed' else 'pending' end`
        : sql`'failed'`;
  const responseStatus = outcome.kind === "refused" ? null : outcome.status;
  const error = outcome.kind === "delivered" ? null : outcome.error;
  const [row] = await db.execute<{ status: "delivered" | "pending" | "failed" }>(sql`
    update app.webhook_deliveries
    set status = ${status}, lease_until = null, data = ${data},
      last_response_status = ${responseStatus}, last_error = ${error},
      next_attempt_at = ${retryable ? next : sql`next_attempt_at`},
      delivered_at = ${outcome.kind === "delivered" ? sql`now()` : sql`null`}
    where id = ${delivery.id} and status = 'sending' and attempts = ${delivery.attempts}
    returning status`);
  if (!row) return undefined;
  return row.status === "pending" ? "retried" : row.status;
}

/** Gives a claim back untried (the process is stopping): the delivery is due again at once. */
export async function releaseClaim(
  db: Database,
  delivery: Pick<ClaimedDelivery, "id" | "attempts">,
): Promise<void> {
  await db.execute(sql`
    update app.webhook_deliveries
    set status = 'pending', lease_until = null, next_attempt_at = now()
    where id = ${delivery.id} and status = 'sending' and attempts = ${delivery.attempts}`);
}
