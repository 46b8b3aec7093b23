import { and, eq, lt } from "drizzle-orm";
import type { Bus } from "../../lib/bus/bus.ts";
import { runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { dropOldOutputs } from "../../lib/runLedger/dropOldOutputs.ts";
import {
  ago,
  interruptLapsedRuns,
  refuseWaitingRuns,
} from "../../lib/runLedger/endStrandedRuns.ts";
import { grantSlots } from "../../lib/runLedger/grantSlots.ts";
import { publishRun } from "../../lib/runLedger/publishRun.ts";

/** A run `queued` this long after admission may have lost its command: it is published again. */
export const REPUBLISH_QUEUED_AFTER_MS = 5_000;
/** The API grants slots right after admitting a run; one still waiting this long may have lost it. */
const REGRANT_WAITING_AFTER_MS = 1_000;
/** Runs republished, and listings granted, per pass at most: the next pass takes the rest. */
const BATCH = 500;

export type RunSweep = {
  db: Database;
  bus: Bus;
  log: Logger;
  /** A run still `waiting` this long after admission is refused (`RUN_QUEUE_WAIT_MS`). */
  queueWaitMs: number;
  /** Outputs of runs finished longer ago are dropped (`RUN_OUTPUT_RETENTION_DAYS`). */
  outputRetentionDays: number;
};

/** How often a process drops outputs past their retention: they age by days, not seconds. */
const RETENTION_EVERY_MS = 60_000;

/**
 * One pass over the runs the crash of a process can strand, safe to run in every process at once
 * (each step is a conditional update, or a no-op repeated): a `running` run whose lease ran out
 * (its worker died) is failed and never run again; a `waiting` run past `queueWaitMs` is refused,
 * nothing charged; a `queued` run is published again (a lost publish; its id dedupes a repeat);
 * listings with waiting runs get their slots granted (a grant lost with its process).
 */
export async function sweepRuns({
  db,
  bus,
  log,
  queueWaitMs,
}: Omit<RunSweep, "outputRetentionDays">): Promise<void> {
  const interrupted = await interruptLapsedRuns({ db, bus });
  const refused = await refuseWaitingRuns({ db, bus }, queueWaitMs);
  if (interrupted.length > 0)
    log.warn("runs interrupted", { runs: interrupted.map(({ id }) => id) });
  if (refused.length > 0) log.info("runs refused", { runs: refused.map(({ id }) => id) });

  const queued = await db
    .select({ id: runs.id, traceParent: runs.traceParent })
    .from(runs)
    .where(and(eq(runs.status, "queued"), lt(runs.createdAt, ago(REPUBLISH_QUEUED_AFTER_MS))))
    .limit(BATCH);
  await Promise.all(queued.map((run) => publishRun(bus, run).catch(() => undefined)));

  const waiting = await db
    .selectDistinct({ onChainListingId: runs.onChainListingId })
    .from(runs)
    .where(and(eq(runs.status, "waiting"), lt(runs.createdAt, ago(REGRANT_WAITING_AFTER_MS))))
    .limit(BATCH);
  const listings = new Set([
    ...interrupted.map(({ onChainListingId }) => onChainListingId),
    ...waiting.map(({ onChainListingId }) => onChainListingId),
  ]);
  for (const onChainListingId of listings) await grantSlots({ db, bus }, onChainListingId);
}

/**
 * Sweeps every `intervalMs` until stopped, one pass at a time; a pass that fails (the database is
 * unreachable) is logged and the next one tries again.
 */
export function startRunSweeper(
  sweep: RunSweep,
  intervalMs = 1_000,
): { stop: () => Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  let retainedAt = 0;
  const sweepOnce = async () => {
    await sweepRuns(sweep);
    if (Date.now() - retainedAt < RETENTION_EVERY_MS) return;
    retainedAt = Date.now();
    const dropped = await dropOldOutputs(sweep.db, sweep.outputRetentionDays);
    if (dropped > 0) sweep.log.info("old run outputs dropped", { runs: dropped });
  };
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      pass = sweepOnce()
        .catch((error: unknown) => sweep.log.warn("run sweep failed", { error: String(error) }))
        .finally(next);
    }, intervalMs);
  };
  next();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
