import type { Logger } from "../lib/log.ts";

/** How often the supervisor compares the indexer's synced block with the chain's head. */
export const INDEXER_CHECK_EVERY_MS = 1_000;
/**
 * How long the indexer may stand still behind the head before it is restarted. With a restart's
 * backfill from Ponder's cache, projections follow within 15 s of a stall's end.
 */
export const INDEXER_STALL_MS = 5_000;

/** Where the indexer stands against the chain, as last checked. */
export type IndexerProgress = {
  /** The last block Ponder's live sync took in; undefined while Ponder does not answer. */
  syncedBlock: bigint | undefined;
  /** The chain's head; undefined while the node does not answer. */
  chainHead: bigint | undefined;
  /** Since when (ms since the epoch) the head has been past the synced block; undefined when caught up. */
  behindSince: number | undefined;
};

export type IndexerWatchOptions = {
  readChainHead: () => Promise<bigint>;
  readSyncedBlock: () => Promise<bigint>;
  /** Stops the indexer and starts it again, resolving once it is ready. */
  restart: () => Promise<void>;
  /** Each check's outcome, for readers of the lag (`recordIndexerProgress`). */
  onProgress?: (progress: IndexerProgress) => void;
  log: Logger;
  checkEveryMs: number;
  /** How long the synced block may stand still behind a head that moved past it. */
  stallMs: number;
};

/**
 * Checks the indexer's synced block against the chain's head every `checkEveryMs`, and restarts the
 * indexer once it has stood still behind the head (or not answered) for `stallMs`: Ponder's live sync
 * can stop for good with no error after the node stalls (docs/operations.md, "The indexer"). A head
 * that does not move, or a node that does not answer, is no reason to restart.
 */
export function watchIndexer(options: IndexerWatchOptions): { stop: () => Promise<void> } {
  const { log, checkEveryMs, stallMs } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeStopped: () => void = () => {};
  let lastSynced: bigint | undefined;
  /** When the synced block last moved, or the watch (re)started… */
  let movedAt = Date.now();
  /** …and the head then: a stall is a head that moved on since while the synced block did not. */
  let headWhenMoved: bigint | undefined;
  let behindSince: number | undefined;

  async function check() {
    const [chainHead, syncedBlock] = await Promise.all([
      options.readChainHead().catch(() => undefined),
      options.readSyncedBlock().catch(() => undefined),
    ]);
    const now = Date.now();
    if (syncedBlock !== undefined && syncedBlock !== lastSynced) {
      lastSynced = syncedBlock;
      movedAt = now;
      headWhenMoved = chainHead;
    }
    headWhenMoved ??= chainHead;
    const behind =
      chainHead !== undefined && (syncedBlock === undefined || syncedBlock < chainHead);
    behindSince = behind ? (behindSince ?? now) : undefined;
    options.onProgress?.({ syncedBlock, chainHead, behindSince });
    const headMovedOn =
      chainHead !== undefined && headWhenMoved !== undefined && chainHead > headWhenMoved;
    if (behindSince === undefined || !headMovedOn) return;
    if (now - Math.max(behindSince, movedAt) < stallMs) return;

    log.error("indexer stalled: restarting it", {
      synced_block: syncedBlock ?? lastSynced,
      chain_head: chainHead,
      behind_ms: now - behindSince,
      standing_still_ms: now - movedAt,
    });
    await options.restart();
    log.warn("indexer restarted", { chain_head: chainHead });
    movedAt = Date.now();
    headWhenMoved = undefined;
    behindSince = undefined;
  }

  async function loop() {
    while (!stopped) {
      await check().catch((error: unknown) => {
        log.error("indexer check failed", { error: (error as Error).name });
      });
      if (stopped) break;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, checkEveryMs);
        wakeStopped = resolve;
      });
    }
  }
  const running = loop();

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      wakeStopped();
      await running;
    },
  };
}
