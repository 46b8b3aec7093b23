import { and, eq, sql } from "drizzle-orm";
import { type RunRequest, runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";

export type TakenRun = {
  id: string;
  onChainListingId: string;
  /** Null only for a row the API wrote without one: the run fails rather than guess. */
  request: RunRequest | null;
};

/** `lease_until` `leaseMs` from now, by the database's clock (the one every process compares). */
export const leaseFromNow = (leaseMs: number) =>
  sql`now() + ${Math.round(leaseMs)}::int * interval '1 millisecond'`;

/**
 * Moves a `queued` run to `running`, leased to this worker for `leaseMs`. Undefined when the run is
 * not `queued` (taken by another delivery, ended, unknown): the caller does nothing with it.
 */
export async function takeRun(
  db: Database,
  runId: string,
  leaseMs: number,
): Promise<TakenRun | undefined> {
  const [taken] = await db
    .update(runs)
    .set({ status: "running", startedAt: sql`now()`, leaseUntil: leaseFromNow(leaseMs) })
    .where(and(eq(runs.id, runId), eq(runs.status, "queued")))
    .returning({
      id: runs.id,
      onChainListingId: runs.onChainListingId,
      request: runs.request,
    });
  return taken;
}
