import { and, eq } from "drizzle-orm";
import { type RunCharge, runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { endedRunColumns } from "../../lib/runs/endRun.ts";
import { RUN_INTERNAL_ERROR } from "../../lib/runs/runFailures.ts";
import type { RunOutcome } from "./runtime.ts";

export type FinishedRun = { onChainListingId: string; charge: RunCharge };

const ATTEMPTS = 6;

/**
 * Writes a running run's outcome in one statement: status, output, failure, duration, its charge
 * moved on. Undefined when the run is no longer `running` (the sweeper ended it when its lease ran
 * out: its end stands), or when the database stayed unreachable through every attempt (its lease
 * lapses, and the sweeper ends it as interrupted). An output the database refuses to store (a data
 * exception) fails the run instead of being tried again.
 */
export async function finishRun(
  { db, log }: { db: Database; log: Logger },
  runId: string,
  outcome: RunOutcome,
  durationMs: number,
): Promise<FinishedRun | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeOutcome(db, runId, outcome, durationMs);
    } catch (error) {
      if (isDataException(error) && outcome.status === "completed") {
        log.warn("the database refused a run's output", { run_id: runId, error: String(error) });
        outcome = { status: "failed", output: "", failure: RUN_INTERNAL_ERROR };
        continue;
      }
      if (attempt >= ATTEMPTS) {
        log.error("could not write a run's outcome", { run_id: runId, error: String(error) });
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

async function writeOutcome(
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

/** Postgres class 22: the value itself is wrong (say, a lone surrogate), not the connection. */
function isDataException(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return [code, cause?.code].some((value) => typeof value === "string" && value.startsWith("22"));
}
