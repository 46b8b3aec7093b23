import { and, eq } from "drizzle-orm";
import { runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { runsEnded } from "../metrics/metrics.ts";
import { metricsOn } from "../metrics/metricsOn.ts";
import { endedRunColumns } from "./endRun.ts";
import { RUN_NOT_HANDED_OVER } from "./runNotStarted.ts";
import { statusMove } from "./transitions.ts";

const REFUSE = statusMove("queued", "failed");

/**
 * Refuses a run whose command the bus did not acknowledge in time, if no worker has taken it yet
 * (it is still `queued`): failed as never started, its reservation released, its Idempotency-Key
 * given up. A command that reaches a worker later finds it no longer `queued` and does nothing.
 * False when a worker took it first: the bus did carry it, and it goes on.
 */
export async function refuseUnhandedRun(db: Database, runId: string): Promise<boolean> {
  const refused = await db
    .update(runs)
    .set(endedRunColumns(REFUSE.to, RUN_NOT_HANDED_OVER, false))
    .where(and(eq(runs.id, runId), eq(runs.status, REFUSE.from)))
    .returning({ charge: runs.charge });
  if (metricsOn()) for (const { charge } of refused) runsEnded.inc({ status: REFUSE.to, charge });
  return refused.length > 0;
}
