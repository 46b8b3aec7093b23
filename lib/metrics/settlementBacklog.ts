import { sql } from "drizzle-orm";
import type { Database } from "../db/projections.ts";
import { collectedGauge } from "./collectedGauge.ts";

type Backlog = { pending: number; oldest_seconds: number | null };

/**
 * The runs charged and not yet debited on chain, read at each scrape: one aggregate over the runs
 * index on `charge` for both gauges, whose cost grows with the backlog only.
 */
export function gaugeSettlementBacklog(db: Database): void {
  let reading: Promise<Backlog> | undefined;
  const backlog = () => {
    reading ??= db
      .execute<Backlog>(sql`
        select count(*)::int as pending,
               extract(epoch from now() - min(finished_at))::float8 as oldest_seconds
          from app.runs where charge = 'debit_pending'`)
      .then(([row]) => row ?? { pending: 0, oldest_seconds: null })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  collectedGauge(
    "marketplace_settlement_debits_pending",
    "Runs charged whose debit is not yet settled on chain",
    async () => (await backlog()).pending,
  );
  collectedGauge(
    "marketplace_settlement_oldest_pending_seconds",
    "Age of the oldest run whose debit is pending; 0 when none",
    async () => Math.max(0, (await backlog()).oldest_seconds ?? 0),
  );
}
