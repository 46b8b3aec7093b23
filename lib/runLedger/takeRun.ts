import { and, eq, inArray, sql } from "drizzle-orm";
import {
  type SealedAgent,
  type SealedAgentRow,
  sealedAgent,
  sealedAgentRow,
} from "../agents/openAgentSecret.ts";
import type { Bus } from "../bus/bus.ts";
import { type RunRequest, runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { runStartLatency } from "../metrics/metrics.ts";
import { announceChanged } from "./announce.ts";
import { statusMove } from "./transitions.ts";

export type TakenRun = {
  id: string;
  onChainListingId: string;
  /** Null only for a row the API wrote without one: the run fails rather than guess. */
  request: RunRequest | null;
  /** The agent version it runs; undefined when no agent was saved under its listing. */
  agent: SealedAgent | undefined;
};

const TAKE = statusMove("queued", "running");

/** `lease_until` `leaseMs` from now, by the database's clock (the one every process compares). */
const leaseFromNow = (leaseMs: number) =>
  sql`now() + ${Math.round(leaseMs)}::int * interval '1 millisecond'`;

/**
 * Moves a `queued` run to `running`, leased to this worker for `leaseMs`, and announces it; read in
 * the same statement, the agent version it runs. Undefined when the run is not `queued` (taken by
 * another delivery, ended, unknown): the caller does nothing with it.
 */
export async function takeRun(
  { db, bus }: { db: Database; bus: Bus },
  runId: string,
  leaseMs: number,
): Promise<TakenRun | undefined> {
  const [taken] = await db.execute<
    {
      id: string;
      on_chain_listing_id: string;
      request: RunRequest | null;
      waited_seconds: number;
    } & SealedAgentRow
  >(sql`
    with taken as (
      update ${runs} set status = ${TAKE.to}, started_at = now(), lease_until = ${leaseFromNow(leaseMs)}
      where id = ${runId} and status = ${TAKE.from}
      returning id, on_chain_listing_id, request,
        extract(epoch from started_at - created_at)::float8 as waited_seconds
    )
    select taken.*, agent.* from taken
      left join lateral (${sealedAgentRow(sql`taken.on_chain_listing_id`)}) agent on true`);
  if (!taken) return undefined;
  runStartLatency.observe(taken.waited_seconds);
  announceChanged(bus, [runId], false, { status: TAKE.to });
  return {
    id: taken.id,
    onChainListingId: taken.on_chain_listing_id,
    request: taken.request,
    agent: taken.shown_metadata_uri ? sealedAgent(taken.on_chain_listing_id, taken) : undefined,
  };
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
