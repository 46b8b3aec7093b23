import { and, eq, type SQL, sql } from "drizzle-orm";
import { runs } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { windowConditions } from "./listRuns.ts";

const { debitEvent } = projections;
const DAY_MS = 86_400_000;

export type DailyRunTotals = { date: string; runs: number; failures: number; earned_wei: string };

/**
 * Per UTC day from `since` to `until`, oldest first, every day present: the runs `scope` selects
 * created that day, how many failed, and what their creator earned from them, the price less the
 * protocol's fee of each debit the indexer has seen (docs/decisions.md, "What does a creator's
 * `earned_wei` per day count?").
 */
export async function dailyRunTotals(
  db: Database,
  scope: SQL,
  { since, until, onChainListingId }: { since: Date; until: Date; onChainListingId?: string },
): Promise<DailyRunTotals[]> {
  const day = sql<string>`to_char(${runs.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const conditions = [scope, ...windowConditions({ since, until })];
  if (onChainListingId) conditions.push(eq(runs.onChainListingId, onChainListingId));
  const rows = await db
    .select({
      date: day,
      runs: sql<number>`count(*)::int`,
      failures: sql<number>`(count(*) filter (where ${runs.status} = 'failed'))::int`,
      earned: sql<string>`coalesce(sum(${debitEvent.price} - ${debitEvent.fee}), 0)::text`,
    })
    .from(runs)
    .leftJoin(
      debitEvent,
      and(
        eq(debitEvent.listingId, sql`${runs.onChainListingId}`),
        eq(debitEvent.runId, sql`${runs.onChainRunId}`),
      ),
    )
    .where(and(...conditions))
    .groupBy(day);
  const byDate = new Map(rows.map((row) => [row.date, row]));
  const days: DailyRunTotals[] = [];
  const last = utcDate(new Date(Math.max(since.getTime(), until.getTime() - 1)));
  for (let at = Date.parse(utcDate(since)); ; at += DAY_MS) {
    const date = utcDate(new Date(at));
    const row = byDate.get(date);
    days.push({
      date,
      runs: row?.runs ?? 0,
      failures: row?.failures ?? 0,
      earned_wei: row?.earned ?? "0",
    });
    if (date >= last) return days;
  }
}

function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}
