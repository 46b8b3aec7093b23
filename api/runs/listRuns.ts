import { and, desc, eq, gte, inArray, lt, notInArray, or, type SQL, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { type RunCharge, runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { apiRunStatus, costOf, isAnswered } from "../../lib/runLedger/runView.ts";
import { exactJson } from "../http/exactJson.ts";
import { encodeRunCursor, type RUN_STATUSES, type RunListQuery } from "./runListQuery.ts";

/** Charges that keep an ended run's answer open: the API shows it `running` until they settle. */
const UNSETTLED: RunCharge[] = ["reserved", "debit_pending"];

/**
 * A page of the runs `scope` selects, newest first (keyset on `created_at`, then id, so runs
 * admitted while a client pages shift nothing), and the cursor of the next page or null at the end.
 * Each item is the run's bookkeeping only, never its input or output.
 */
export async function listRuns(db: Database, scope: SQL, query: RunListQuery) {
  const conditions = [scope, ...windowConditions(query)];
  if (query.agent_id) conditions.push(eq(runs.onChainListingId, query.agent_id));
  if (query.status) conditions.push(statusCondition(query.status));
  if (query.cursor) {
    const { createdAtMicros, id } = query.cursor;
    conditions.push(
      sql`(${runs.createdAt}, ${runs.id}) < (timestamptz 'epoch' + ${createdAtMicros.toString()}::bigint * interval '1 microsecond', ${id})`,
    );
  }
  const rows = await db
    .select({
      id: runs.id,
      onChainListingId: runs.onChainListingId,
      status: runs.status,
      charge: runs.charge,
      costWei: runs.costWei,
      reservedWei: runs.reservedWei,
      durationMs: runs.durationMs,
      createdAt: runs.createdAt,
      createdAtMicros: sql<string>`(extract(epoch from ${runs.createdAt}) * 1000000)::bigint::text`,
    })
    .from(runs)
    .where(and(...conditions))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    runs: page.map((row) => ({
      run_id: row.id,
      agent_id: toApiListingId(row.onChainListingId as Hex),
      status: apiRunStatus(row),
      cost_wei: costOf(row),
      duration_ms: isAnswered(row) ? (row.durationMs ?? 0) : null,
      created_at: row.createdAt.toISOString(),
    })),
    next_cursor:
      rows.length > query.limit && last
        ? encodeRunCursor({ createdAtMicros: BigInt(last.createdAtMicros), id: last.id })
        : null,
  };
}

export type RunPage = Awaited<ReturnType<typeof listRuns>>;

/** The page as JSON text, `cost_wei` an exact integer, with `more` fields after it. */
export function runPageJson(page: RunPage, more: Record<string, unknown> = {}): string {
  const items = page.runs.map((item) => exactJson(item)).join(",");
  const rest = exactJson({ next_cursor: page.next_cursor, ...more }).slice(1);
  return `{"runs":[${items}],${rest}`;
}

/** `since` (inclusive) and `until` (exclusive) on the runs' `created_at`. */
export function windowConditions({ since, until }: { since?: Date; until?: Date }): SQL[] {
  return [
    ...(since ? [gte(runs.createdAt, since)] : []),
    ...(until ? [lt(runs.createdAt, until)] : []),
  ];
}

/** Runs in the status the API shows (`apiRunStatus`), in SQL. */
function statusCondition(status: (typeof RUN_STATUSES)[number]): SQL {
  switch (status) {
    case "completed":
    case "failed":
      return and(eq(runs.status, status), notInArray(runs.charge, UNSETTLED)) as SQL;
    case "running":
      return or(
        eq(runs.status, "running"),
        and(inArray(runs.status, ["completed", "failed"]), inArray(runs.charge, UNSETTLED)),
      ) as SQL;
    default:
      return eq(runs.status, status);
  }
}
