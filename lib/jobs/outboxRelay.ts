import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { jobs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import type { Logger } from "../log.ts";
import { publishJob } from "./publishJob.ts";

/** A queued job the bus took this long ago without a result is published again (workers dedupe). */
const REPUBLISH_AFTER_MS = 5 * 60_000;
/** Younger unpublished jobs are still in their request's own publish. */
const UNPUBLISHED_GRACE_MS = 5_000;

/**
 * Publishes jobs whose publish never reached the bus (it was down, the API crashed between commit
 * and publish), so no accepted job is lost. Runs every `intervalMs` until stopped.
 */
export function startOutboxRelay(
  { db, bus, log }: { db: Database; bus: Bus; log: Logger },
  intervalMs = 1_000,
) {
  let running = true;

  const sweep = async () => {
    const stale = new Date(Date.now() - REPUBLISH_AFTER_MS);
    const abandoned = new Date(Date.now() - UNPUBLISHED_GRACE_MS);
    const due = await db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          eq(jobs.status, "queued"),
          or(
            and(isNull(jobs.publishedAt), lt(jobs.createdAt, abandoned)),
            lt(jobs.publishedAt, stale),
          ),
        ),
      )
      .limit(500);
    for (const { id } of due) {
      if (!running) return;
      await publishJob(db, bus, id);
    }
    if (due.length > 0) log.info("outbox relay published jobs", { count: due.length });
  };

  const loop = (async () => {
    while (running) {
      await sweep().catch((error: unknown) => {
        log.warn("outbox relay could not publish", { error: String(error) });
      });
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();

  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/**
 * Marks every queued job unpublished, so the relay publishes it again: for a bus that starts empty
 * (the in-process one), which lost whatever it held when its process stopped.
 */
export async function requeueUnpublishedJobs(db: Database): Promise<void> {
  await db.update(jobs).set({ publishedAt: null }).where(eq(jobs.status, "queued"));
}
