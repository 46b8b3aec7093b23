import { and, eq, inArray, sql } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { type RunRequest, runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { announceChanged } from "./announce.ts";
import { statusMove } from "./transitions.ts";

export type TakenRun = {
  id: string;
  onChainListingId: string;
  /** Null only for a row the API wrote without one: the run fails rather than guess. */
  request: RunRequest | null;
};

const TAKE = statusMove("queued", "running");

/** `lease_until` `leaseMs` from now, by the database's clock (the one every process compares). */
const leaseFromNow = (leaseMs: number) =>
  sql`now() + ${Math.round(leaseMs)}::int * interval '1 millisecond'`;

/**
 * Moves a `queued` run to `running`, leased to this worker for `leaseMs`, and announces it.
 * Undefined when the run is not `queued` (taken by another delivery, ended, unknown): the caller
 * does nothing with it.
 */
export async function takeRun(
  { db, bus }: { db: Database; bus: Bus },
  runId: string,
  leaseMs: number,
): Promise<TakenRun | undefined> {
  const [taken] = await db
    .update(runs)
    .set({ status: TAKE.to, startedAt: sql`now()`, leaseUntil: leaseFromNow(leaseMs) })
    .where(and(eq(runs.id, runId), eq(runs.status, TAKE.from)))
    .returning({
      id: runs.id,
      onChainListingId: runs.onChainListingId,
      request: runs.request,
    });
  if (taken) announceChanged(bus, [runId], false, { status: TAKE.to });
  return taken;
}

/**
 * Renews the leases of `runIds` for `leaseMs` more; returns those renewed. A run not renewed is no
 * longer `running`: the sweeper ended it, and its worker must let it go.
 */
export async function renewLeases(
  db: Database,
  runIds: string[],
  leaseMs: number,
): Promise<Set<string>> {
  const renewed = await db
    .update(runs)
    .set({ leaseUntil: leaseFromNow(leaseMs) })
    .where(and(inArray(runs.id, runIds), eq(runs.status, TAKE.to)))
    .returning({ id: runs.id });
  return new Set(renewed.map(({ id }) => id));
}
