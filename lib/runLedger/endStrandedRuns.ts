import { and, eq, lt, sql } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { runsEnded } from "../metrics/metrics.ts";
import { metricsOn } from "../metrics/metricsOn.ts";
import { announceChanged } from "./announce.ts";
import { endedRunColumns } from "./endRun.ts";
import { RUN_INTERRUPTED } from "./runFailures.ts";
import { RUN_NOT_STARTED } from "./runNotStarted.ts";
import { statusMove } from "./transitions.ts";

const INTERRUPT = statusMove("running", "failed");
const REFUSE = statusMove("waiting", "failed");

/** `ms` before now, by the database's clock. */
export const ago = (ms: number) => sql`now() - ${Math.round(ms)}::int * interval '1 millisecond'`;

/**
 * Fails the `running` runs whose lease ran out (their worker died) and announces them; they are
 * never run again. Nothing of their output is known to have reached the renter here (the worker that
 * streamed it is gone), so a reservation is released: a crash of ours never charges.
 */
export async function interruptLapsedRuns({ db, bus }: { db: Database; bus: Bus }) {
  const interrupted = await db
    .update(runs)
    .set({
      ...endedRunColumns(INTERRUPT.to, RUN_INTERRUPTED, false),
      output: "",
      durationMs: sql`(extract(epoch from now() - ${runs.startedAt}) * 1000)::int`,
    })
    .where(and(eq(runs.status, INTERRUPT.from), lt(runs.leaseUntil, sql`now()`)))
    .returning({ id: runs.id, onChainListingId: runs.onChainListingId, charge: runs.charge });
  if (metricsOn())
    for (const { charge } of interrupted) runsEnded.inc({ status: INTERRUPT.to, charge });
  announceChanged(
    bus,
    interrupted.map(({ id }) => id),
  );
  return interrupted;
}

/**
 * Refuses the runs still `waiting` `queueWaitMs` after admission, never run or charged (the API's
 * 503), and announces them.
 */
export async function refuseWaitingRuns(
  { db, bus }: { db: Database; bus: Bus },
  queueWaitMs: number,
) {
  const refused = await db
    .update(runs)
    .set(endedRunColumns(REFUSE.to, RUN_NOT_STARTED, false))
    .where(and(eq(runs.status, REFUSE.from), lt(runs.createdAt, ago(queueWaitMs))))
    .returning({ id: runs.id, charge: runs.charge });
  if (metricsOn()) for (const { charge } of refused) runsEnded.inc({ status: REFUSE.to, charge });
  announceChanged(
    bus,
    refused.map(({ id }) => id),
  );
  return refused;
}
