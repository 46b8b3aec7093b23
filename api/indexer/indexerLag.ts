import { eq } from "drizzle-orm";
import { indexerProgress } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";

/** A row read this recently answers again: the supervisor writes one twice a second. */
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

export type IndexerLagReader = {
  /** The lag as `app.indexer_progress` says now (read at most once a second). */
  read: () => Promise<IndexerLag>;
  /**
   * The lag as last read, without waiting: a read is started when the last is over a second old.
   * Undefined until one succeeded. For the answers that carry it, which must not wait on Postgres.
   */
  latest: () => IndexerLag | undefined;
};

type ProgressRow = typeof indexerProgress.$inferSelect;

/** Reads `app.indexer_progress` for `viewsSchema`, at most once a second however many ask. */
export function indexerLagReader(
  db: Database,
  viewsSchema: string,
  now = () => Date.now(),
): IndexerLagReader {
  let last: { at: number; row: Promise<ProgressRow | undefined> } | undefined;
  /** What the last read that succeeded found. */
  let found: { row: ProgressRow | undefined } | undefined;

  function load(): Promise<ProgressRow | undefined> {
    if (last && now() - last.at < LAG_READ_MAX_AGE_MS) return last.row;
    const row = db
      .select()
      .from(indexerProgress)
      .where(eq(indexerProgress.viewsSchema, viewsSchema))
      .then(([row]) => {
        found = { row };
        return row;
      });
    last = { at: now(), row };
    row.catch(() => {
      if (last?.row === row) last = undefined;
    });
    return row;
  }

  function lagOf(row: ProgressRow | undefined): IndexerLag {
    if (!row) return UNKNOWN;
    const { indexedBlock, chainHead, behindSince, checkedAt } = row;
    const known = indexedBlock !== null && chainHead !== null;
    const behindBlocks = known && chainHead > indexedBlock ? Number(chainHead - indexedBlock) : 0;
    return {
      indexed_block: indexedBlock?.toString() ?? null,
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
    read: async () => lagOf(await load()),
    latest: () => {
      load().catch(() => {});
      return found && lagOf(found.row);
    },
  };
}
