import { and, eq } from "drizzle-orm";
import { runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { endedRunColumns } from "../../lib/runs/endRun.ts";
import { RUN_NOT_HANDED_OVER } from "../../lib/runs/runNotStarted.ts";

/**
 * Refuses a run whose command the bus did not acknowledge in time, if no worker has taken it yet
 * (it is still `queued`): failed as never started, its reservation released, its Idempotency-Key
 * given up. A command that reaches a worker later finds it no longer `queued` and does nothing.
 * False when a worker took it first: the bus did carry it, and it goes on.
 */
export async function refuseUnhandedRun(db: Database, runId: string): Promise<boolean> {
  const refused = await db
    .update(runs)
    .set(endedRunColumns("failed", RUN_NOT_HANDED_OVER))
    .where(and(eq(runs.id, runId), eq(runs.status, "queued")))
    .returning({ id: runs.id });
  return refused.length > 0;
}
