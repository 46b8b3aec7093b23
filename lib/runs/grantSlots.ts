import { sql } from "drizzle-orm";
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
  const granted = await db.transaction((tx) => queueWaitingRuns(tx, onChainListingId, limit));
  await announceGranted(bus, granted);
  return granted;
}

/**
 * The locked part of `grantSlots`, in the caller's transaction (which must announce what it returns
 * once committed): takes the listing's advisory lock, then in one statement counts the runs holding
 * a slot and moves as many waiting runs to `queued` as there are free slots. Returns them in the
 * order they were chosen.
 */
export async function queueWaitingRuns(
  tx: Database,
  onChainListingId: string,
  limit = RUNS_IN_FLIGHT_PER_LISTING,
): Promise<string[]> {
  // A statement of its own before the count: the count's snapshot must come after the lock.
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`slots:${onChainListingId}`}, 0))`,
  );
  // Only runs still waiting are moved: one refused meanwhile (its wait ran out) stays refused.
  const queued = await tx.execute<{ id: string }>(sql`
    with chosen as (
      select id, row_number() over (
        order by priority = 'priority' desc, created_at, on_chain_run_id
      ) as position
      from ${runs}
      where on_chain_listing_id = ${onChainListingId} and status = 'waiting'
      order by position
      limit greatest(0, ${limit}::int - (
        select count(*) from ${runs}
        where on_chain_listing_id = ${onChainListingId} and status in ('queued', 'running')
      ))
    ),
    moved as (
      update ${runs} set "status" = 'queued'
      from chosen where ${runs}.id = chosen.id and ${runs}.status = 'waiting'
      returning ${runs}.id
    )
    select moved.id from moved join chosen using (id) order by chosen.position`);
  return queued.map(({ id }) => id);
}

/**
 * Publishes granted runs to the workers and tells whoever waits for one (to stream or refuse it).
 * Returns the runs whose publish was not acknowledged (the sweeper publishes them again).
 */
export async function announceGranted(bus: Bus, granted: string[]): Promise<string[]> {
  const published = await Promise.all(
    granted.map((id) =>
      publishRun(bus, id).then(
        () => true,
        () => false,
      ),
    ),
  );
  for (const id of granted) {
    try {
      bus.notify(runTopic(id), encodeNotice({ kind: "changed" }));
    } catch {
      // A notice lost: the waiter reads the row again soon.
    }
  }
  return granted.filter((_, n) => !published[n]);
}
