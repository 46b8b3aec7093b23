import { sql } from "drizzle-orm";
import type { Database } from "../db/projections.ts";
import { collectedGauge } from "./collectedGauge.ts";

type Backlog = { pending: number; oldest_seconds: number | null };

/**
 * The webhook deliveries not yet delivered nor given up, read at each scrape: how many, and how long
 * the oldest has waited. A delivery loop that stalls shows as the age growing.
 */
export function gaugeWebhookBacklog(db: Database): void {
  let reading: Promise<Backlog> | undefined;
  const backlog = () => {
    reading ??= db
      .execute<Backlog>(sql`
        select count(*)::int as pending,
               extract(epoch from now() - min(created_at))::float8 as oldest_seconds
          from app.webhook_deliveries where status in ('pending', 'sending')`)
      .then(([row]) => row ?? { pending: 0, oldest_seconds: null })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  collectedGauge(
    "marketplace_webhook_deliveries_pending",
    "Webhook deliveries not yet delivered nor given up",
    async () => (await backlog()).pending,
  );
  collectedGauge(
    "marketplace_webhook_oldest_pending_seconds",
    "Age of the oldest webhook delivery not yet delivered nor given up; 0 when none",
    async () => Math.max(0, (await backlog()).oldest_seconds ?? 0),
  );
}
