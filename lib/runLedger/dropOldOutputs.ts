import { sql } from "drizzle-orm";
import { runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";

/** Outputs dropped per statement at most: the next pass takes the rest. */
const BATCH = 1_000;

/**
 * Drops the outputs of runs finished more than `retentionDays` ago (`RUN_OUTPUT_RETENTION_DAYS`);
 * the row and its accounting (status, charge, cost, the output's SHA-256) stay. Returns how many.
 */
export async function dropOldOutputs(db: Database, retentionDays: number): Promise<number> {
  const dropped = await db.execute(sql`
    update ${runs} set output = null
    where id in (
      select id from ${runs}
      where output is not null and finished_at < now() - ${retentionDays}::int * interval '1 day'
      limit ${BATCH}
    )`);
  return dropped.count;
}
