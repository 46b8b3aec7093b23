import { and, eq } from "drizzle-orm";
import { type RunCharge, runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { endedRunColumns } from "../../lib/runs/endRun.ts";
import type { RunOutcome } from "./runtime.ts";

export type FinishedRun = { onChainListingId: string; charge: RunCharge };

/**
 * Writes a running run's outcome in one statement: status, output, failure, duration, its charge
 * moved on. Undefined when the run is no longer `running` (the sweeper ended it when its lease ran
 * out): its end stands, this outcome is dropped.
 */
export async function finishRun(
  db: Database,
  runId: string,
  outcome: RunOutcome,
  durationMs: number,
): Promise<FinishedRun | undefined> {
  const failed = outcome.status === "failed";
  const [finished] = await db
    .update(runs)
    .set({
      ...endedRunColumns(outcome.status, failed ? withoutNul(outcome.failure) : null),
      output: failed ? withoutNul(outcome.output) : (outcome.output ?? null),
      durationMs: Math.round(durationMs),
    })
    .where(and(eq(runs.id, runId), eq(runs.status, "running")))
    .returning({ onChainListingId: runs.onChainListingId, charge: runs.charge });
  return finished;
}

/** Postgres stores no NUL character; a failed run's text keeps the rest. */
const withoutNul = (text: string) => text.replaceAll("\u0000", "");
