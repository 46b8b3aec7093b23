import { and, count, eq, sql } from "drizzle-orm";
import { agents, jobs } from "../db/appSchema.ts";
import { type Database, projections } from "../db/projections.ts";
import { isUndefinedTable } from "../db/undefinedTable.ts";

/**
 * `queuedPerWallet` (`REGISTRATIONS_QUEUED_PER_WALLET`): jobs one wallet may have queued at once, a
 * registration taking a second, not a queue. `unlistedPerWallet` (`UNLISTED_AGENTS_PER_WALLET`):
 * agents one wallet may hold registered and never listed, its queued registrations counted.
 */
export type RegistrationQuota = { queuedPerWallet: number; unlistedPerWallet: number };
/** An agent registered this long ago and never listed on-chain is deleted (`expireUnlistedAgents.ts`). */
export const UNLISTED_AGENT_EXPIRY_DAYS = 30;

/**
 * Why `wallet` may not queue another job of `kind` now, if it may not: too many jobs queued, or (for
 * a new agent) too many agents it registered and never listed. Registering is free, so each wallet's
 * share of the queue and of the table is bounded; unlisted agents also expire
 * (`workers/registration/expireUnlistedAgents.ts`).
 */
export async function quotaRefusal(
  tx: Database,
  wallet: string,
  kind: "registration" | "version",
  quota: RegistrationQuota,
): Promise<"too_many_pending" | "too_many_unlisted" | undefined> {
  const queued = await tx
    .select({ kind: jobs.kind, count: count() })
    .from(jobs)
    .where(and(eq(jobs.wallet, wallet), eq(jobs.status, "queued")))
    .groupBy(jobs.kind);
  const pending = queued.reduce((total, row) => total + row.count, 0);
  if (pending >= quota.queuedPerWallet) return "too_many_pending";
  if (kind === "version") return undefined;
  const registering = queued.find((row) => row.kind === "registration")?.count ?? 0;
  if ((await countUnlisted(tx, wallet)) + registering >= quota.unlistedPerWallet) {
    return "too_many_unlisted";
  }
  return undefined;
}

/**
 * The agents `wallet` registered whose listing the projections do not hold. Before the indexer has
 * made its views, every agent counts (in a savepoint, so that the missing table spoils nothing).
 */
async function countUnlisted(tx: Database, wallet: string): Promise<number> {
  const creator = eq(agents.creator, wallet.toLowerCase());
  const { listing } = projections;
  const unlisted = sql`not exists (select 1 from ${listing} where ${listing.id} = ${agents.onChainListingId})`;
  try {
    return await tx.transaction(async (savepoint) => {
      const [row] = await savepoint
        .select({ count: count() })
        .from(agents)
        .where(and(creator, unlisted));
      return row?.count ?? 0;
    });
  } catch (error) {
    if (!isUndefinedTable(error)) throw error;
    const [row] = await tx.select({ count: count() }).from(agents).where(creator);
    return row?.count ?? 0;
  }
}
