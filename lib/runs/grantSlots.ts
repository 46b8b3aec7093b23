import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { encodeNotice, runTopic } from "./notices.ts";
import { publishRun } from "./publishRun.ts";

/** At most this many runs of one listing hold a slot (`queued` or `running`), across all processes. */
export const RUNS_IN_FLIGHT_PER_LISTING = 20;

/**
 * Gives free slots of a listing to its waiting runs, `priority` before `standard`, oldest first,
 * publishes each granted run to the workers (message id = run id, so a repeat is dropped) and tells
 * whoever waits on it that it changed. Safe to call from any process at any time: the listing's
 * advisory lock makes the count exact.
 */
export async function grantSlots(
  { db, bus }: { db: Database; bus: Bus },
  onChainListingId: string,
  limit = RUNS_IN_FLIGHT_PER_LISTING,
): Promise<string[]> {
  const granted = await db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`slots:${onChainListingId}`}, 0))`,
    );
    const [counted] = await tx
      .select({ inFlight: sql<number>`count(*)::int` })
      .from(runs)
      .where(
        and(
          eq(runs.onChainListingId, onChainListingId),
          inArray(runs.status, ["queued", "running"]),
        ),
      );
    const free = limit - (counted?.inFlight ?? 0);
    if (free <= 0) return [];
    const waiting = await tx
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.onChainListingId, onChainListingId), eq(runs.status, "waiting")))
      .orderBy(sql`${runs.priority} = 'priority' desc`, asc(runs.createdAt), asc(runs.onChainRunId))
      .limit(free);
    if (waiting.length === 0) return [];
    // Only runs still waiting: one refused meanwhile (its wait ran out) stays refused.
    const queued = await tx
      .update(runs)
      .set({ status: "queued" })
      .where(
        and(
          inArray(
            runs.id,
            waiting.map(({ id }) => id),
          ),
          eq(runs.status, "waiting"),
        ),
      )
      .returning({ id: runs.id });
    const granted = new Set(queued.map(({ id }) => id));
    return waiting.map(({ id }) => id).filter((id) => granted.has(id));
  });
  await Promise.all(granted.map((id) => publishRun(bus, id).catch(() => undefined)));
  // Whoever waits for a granted run (to stream it, or to refuse it) learns at once.
  for (const id of granted) {
    try {
      bus.notify(runTopic(id), encodeNotice({ kind: "changed" }));
    } catch {
      // A notice lost: the waiter reads the row again soon.
    }
  }
  return granted;
}
