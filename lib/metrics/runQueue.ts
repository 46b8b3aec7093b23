import { sql } from "drizzle-orm";
import type { Database } from "../db/projections.ts";
import { collectedGauge } from "./collectedGauge.ts";

type Queue = { waiting: number; holding: number };

/**
 * Runs waiting for a slot and runs holding one (`queued` or `running`), across every listing, read
 * at each scrape: one aggregate over the runs index on status, whose cost grows with the runs in
 * flight only.
 */
export function gaugeRunQueue(db: Database): void {
  let reading: Promise<Queue> | undefined;
  const queue = () => {
    reading ??= db
      .execute<Queue>(sql`
        select count(*) filter (where status = 'waiting')::int as waiting,
               count(*) filter (where status in ('queued', 'running'))::int as holding
          from app.runs where status in ('waiting', 'queued', 'running')`)
      .then(([row]) => row ?? { waiting: 0, holding: 0 })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  collectedGauge(
    "marketplace_runs_waiting",
    "Runs admitted and waiting for a slot of their listing",
    async () => (await queue()).waiting,
  );
  collectedGauge(
    "marketplace_run_slots_in_use",
    "Runs holding a slot of their listing: queued for a worker or running",
    async () => (await queue()).holding,
  );
}
