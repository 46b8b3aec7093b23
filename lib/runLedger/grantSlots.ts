import { sql } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { announceChanged } from "./announce.ts";
import { publishRun, type RunToPublish } from "./publishRun.ts";
import { statusMove } from "./transitions.ts";

const QUEUE = statusMove("waiting", "queued");

/** At most this many runs of one listing hold a slot (`queued` or `running`), across all processes. */
export const RUNS_IN_FLIGHT_PER_LISTING = 20;

/**
 * Gives free slots of a listing to its waiting runs, fairly between wallets (`queueWaitingRuns`),
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
  return granted.map(({ id }) => id);
}

/**
 * The locked part of `grantSlots`, in the caller's transaction (which must announce what it returns
 * once committed): takes the listing's advisory lock, then in one statement counts the runs holding
 * a slot and moves as many waiting runs to `queued` as there are free slots, fairly: the next slot
 * goes to the waiting run whose wallet would hold the fewest slots with it, so a wallet with many
 * runs waiting cannot keep others out; `priority` orders a wallet's own runs and breaks ties between
 * wallets, never more. Returns the runs in the order they were chosen, each with its trace.
 */
export async function queueWaitingRuns(
  tx: Database,
  onChainListingId: string,
  limit = RUNS_IN_FLIGHT_PER_LISTING,
): Promise<RunToPublish[]> {
  // A statement of its own before the count: the count's snapshot must come after the lock.
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`slots:${onChainListingId}`}, 0))`,
  );
  // Only runs still waiting are moved: one refused meanwhile (its wait ran out) stays refused.
  const queued = await tx.execute<{ id: string; trace_parent: string | null }>(sql`
    with holding as (
      select wallet, count(*)::int as held from ${runs}
      where on_chain_listing_id = ${onChainListingId} and status in (${QUEUE.to}, 'running')
      group by wallet
    ),
    waiting as (
      select id, wallet, priority, created_at, on_chain_run_id, row_number() over (
        partition by wallet order by priority = 'priority' desc, created_at, on_chain_run_id
      ) as turn
      from ${runs}
      where on_chain_listing_id = ${onChainListingId} and status = ${QUEUE.from}
    ),
    chosen as (
      select id, row_number() over (
        order by coalesce(holding.held, 0) + waiting.turn, priority = 'priority' desc,
          created_at, on_chain_run_id
      ) as position
      from waiting left join holding using (wallet)
      order by position
      limit greatest(0, ${limit}::int - (select coalesce(sum(held), 0) from holding))
    ),
    moved as (
      update ${runs} set "status" = ${QUEUE.to}
      from chosen where ${runs}.id = chosen.id and ${runs}.status = ${QUEUE.from}
      returning ${runs}.id, ${runs}.trace_parent
    )
    select moved.id, moved.trace_parent from moved join chosen using (id) order by chosen.position`);
  return queued.map(({ id, trace_parent }) => ({ id, traceParent: trace_parent }));
}

/**
 * Publishes granted runs to the workers and tells whoever waits for one (to stream or refuse it).
 * Returns the runs whose publish was not acknowledged (the sweeper publishes them again).
 */
export async function announceGranted(bus: Bus, granted: RunToPublish[]): Promise<string[]> {
  const published = await Promise.all(
    granted.map((run) =>
      publishRun(bus, run).then(
        () => true,
        () => false,
      ),
    ),
  );
  const ids = granted.map(({ id }) => id);
  announceChanged(bus, ids, false, { status: QUEUE.to });
  return ids.filter((_, n) => !published[n]);
}
