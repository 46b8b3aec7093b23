import { and, inArray, lt, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { agentSecrets, agents, agentVersions } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { isUndefinedTable } from "../../lib/db/undefinedTable.ts";
import { UNLISTED_AGENT_EXPIRY_DAYS } from "../../lib/jobs/registrationQuota.ts";
import type { Logger } from "../../lib/log.ts";
import type { ListedOnChain } from "./listedOnChain.ts";

/** How often a registration worker looks for them: they age by days. */
export const EXPIRY_SWEEP_EVERY_MS = 60 * 60_000;
/** Agents looked at per sweep at most: each costs a read of the chain. */
const BATCH = 100;

const { listing } = projections;
const unlisted = sql`not exists (select 1 from ${listing} where ${listing.id} = ${agents.onChainListingId})`;

/**
 * Deletes the agents registered more than `expiryDays` ago that were never listed: their rows, their
 * versions and their sealed private parts. The projections name the candidates; the chain has the
 * last word, so an indexer behind (or rebuilding) never costs a listed agent its registration.
 * Answers the on-chain listing ids of the agents deleted.
 */
export async function expireUnlistedAgents(
  { db, listedOnChain }: { db: Database; listedOnChain: ListedOnChain },
  expiryDays = UNLISTED_AGENT_EXPIRY_DAYS,
): Promise<string[]> {
  const candidates = await db
    .select({ id: agents.onChainListingId })
    .from(agents)
    .where(and(lt(agents.createdAt, sql`now() - make_interval(days => ${expiryDays})`), unlisted))
    .limit(BATCH);
  const expired: string[] = [];
  for (const { id } of candidates) {
    if (await listedOnChain(id as Hex)) continue;
    expired.push(id);
  }
  if (expired.length === 0) return [];
  return db.transaction(async (tx) => {
    const deleted = await tx
      .delete(agents)
      .where(and(inArray(agents.onChainListingId, expired), unlisted))
      .returning({ id: agents.onChainListingId });
    const ids = deleted.map(({ id }) => id);
    if (ids.length > 0) {
      await tx.delete(agentVersions).where(inArray(agentVersions.onChainListingId, ids));
      await tx.delete(agentSecrets).where(inArray(agentSecrets.onChainListingId, ids));
    }
    return ids;
  });
}

/** Sweeps every `EXPIRY_SWEEP_EVERY_MS`, the first time at once; a failed sweep waits for the next. */
export function startUnlistedAgentExpiry(deps: {
  db: Database;
  listedOnChain: ListedOnChain;
  log: Logger;
}): { stop: () => void } {
  const sweep = () =>
    expireUnlistedAgents(deps).then(
      (ids) => {
        if (ids.length > 0) deps.log.info("unlisted agents expired", { listing_ids: ids });
      },
      (error: unknown) => {
        // Before the indexer has made its views no agent can be told unlisted.
        if (isUndefinedTable(error)) return;
        deps.log.warn("could not expire unlisted agents; the next sweep tries again", {
          error: error instanceof Error ? error.message : String(error),
        });
      },
    );
  void sweep();
  const timer = setInterval(sweep, EXPIRY_SWEEP_EVERY_MS).unref();
  return { stop: () => clearInterval(timer) };
}
