import { eq } from "drizzle-orm";
import { indexerProgress } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";

/** A row read this recently answers again: the supervisor writes one a second. */
const LAG_READ_MAX_AGE_MS = 1_000;
/** A check older than this means the supervisor is not checking: the lag is unknown. */
const CHECK_STALE_MS = 10_000;
/** Behind for less than this is a block on its way in, not a lag. */
const CURRENT_WITHIN_MS = 3_000;

/** How current the projections are, as the indexer's supervisor last saw it. */
export type IndexerLag = {
  /** The last block the indexer took in, or null when unknown. */
  indexed_block: string | null;
  chain_head: string | null;
  /** Blocks between the two, or null when either is unknown. */
  behind_blocks: number | null;
  /** How long the head has been past the indexed block; 0 when caught up, null when unknown. */
  behind_seconds: number | null;
  /** Whether the projections are current: caught up (or behind for under 3 s) at a check of the last 10 s. */
  current: boolean;
  checked_at: string | null;
};

const UNKNOWN: IndexerLag = {
  indexed_block: null,
  chain_head: null,
  behind_blocks: null,
  behind_seconds: null,
  current: false,
  checked_at: null,
};

export type IndexerLagReader = { read: () => Promise<IndexerLag> };

/** Reads `app.indexer_progress` for `viewsSchema`, at most once a second however many ask. */
export function indexerLagReader(db: Database, viewsSchema: string, now = () => Date.now()) {
  let last: { at: number; lag: Promise<IndexerLag> } | undefined;

  async function load(): Promise<IndexerLag> {
    const [row] = await db
      .select()
      .from(indexerProgress)
      .where(eq(indexerProgress.viewsSchema, viewsSchema));
    if (!row) return UNKNOWN;
    const { syncedBlock, chainHead, behindSince, checkedAt } = row;
    const known = syncedBlock !== null && chainHead !== null;
    const behindBlocks = known && chainHead > syncedBlock ? Number(chainHead - syncedBlock) : 0;
    return {
      indexed_block: syncedBlock?.toString() ?? null,
      chain_head: chainHead?.toString() ?? null,
      behind_blocks: known ? behindBlocks : null,
      behind_seconds: behindSince
        ? Math.round((now() - behindSince.getTime()) / 1000)
        : known
          ? 0
          : null,
      current:
        known &&
        now() - checkedAt.getTime() < CHECK_STALE_MS &&
        (behindSince === null || now() - behindSince.getTime() < CURRENT_WITHIN_MS),
      checked_at: checkedAt.toISOString(),
    };
  }

  return {
    read: (): Promise<IndexerLag> => {
      if (last && now() - last.at < LAG_READ_MAX_AGE_MS) return last.lag;
      const lag = load();
      last = { at: now(), lag };
      lag.catch(() => {
        if (last?.lag === lag) last = undefined;
      });
      return lag;
    },
  };
}
