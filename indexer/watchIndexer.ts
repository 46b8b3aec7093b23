import type { Logger } from "../lib/log.ts";

/** How often the supervisor compares the indexer's indexed block with the chain's head. */
export const INDEXER_CHECK_EVERY_MS = 500;
/**
 * How long the indexer may stand still behind the head before it is restarted: far longer
 * than a healthy Ponder takes a block, even on a busy machine, since a restart costs 8 to 10 s and
 * briefly takes the unfinalized blocks out of the projections.
 */
export const INDEXER_STALL_MS = 5_000;
/**
 * A node silent this long has let Ponder's own requests run into their 10 s deadline, which drops
 * its request rate to its floor behind a backlog of polls (docs/operations.md, "The indexer"); after
 * a database silent this long, Ponder too often stands still at its next block…
 */
export const INDEXER_SILENCE_MS = 10_000;
/**
 * …so until it has taken a block again, it may stand still behind a moving head only this long: with
 * the restart, projections follow within 15 s of the block.
 */
export const INDEXER_STALL_AFTER_SILENCE_MS = 1_000;
/**
 * How long Ponder may not answer while the head moves on before it is restarted: longer than a
 * freeze of Postgres, which its `/status` waits on too, and during which a restart can only make
 * things worse (it takes the unfinalized blocks out of the projections and cannot start).
 */
export const INDEXER_UNANSWERED_MS = 30_000;

/** Where the indexer stands against the chain, as last checked. */
export type IndexerProgress = {
  /**
   * The last block the projections include, as Ponder last said (while it does not answer, its
   * projections stay where they were); undefined until it first answered.
   */
  indexedBlock: bigint | undefined;
  /** The chain's head; undefined while the node does not answer. */
  chainHead: bigint | undefined;
  /** Since when (ms since the epoch) the head has been past the indexed block; undefined when caught up. */
  behindSince: number | undefined;
};

export type IndexerWatchOptions = {
  readChainHead: () => Promise<bigint>;
  readIndexedBlock: () => Promise<bigint>;
  /** Fails while the database the indexer writes to does not answer. */
  pingDatabase: () => Promise<void>;
  /** Stops the indexer and starts it again, resolving once it is ready. */
  restart: () => Promise<void>;
  /** Each check's outcome, for readers of the lag (`recordIndexerProgress`). */
  onProgress?: (progress: IndexerProgress) => void;
  log: Logger;
  checkEveryMs: number;
  /** How long the indexed block may stand still behind the head. */
  stallMs: number;
  /** After the node or the database has not answered for this long… */
  silenceMs: number;
  /** …`stallMs` is this, until the indexed block moves again. */
  stallAfterSilenceMs: number;
  /** How long the indexer may not answer (the node and the database answering) before it is restarted. */
  unansweredMs: number;
};

/**
 * Checks the indexer's indexed block against the chain's head every `checkEveryMs`, and restarts the
 * indexer once it has stood still behind the head for `stallMs` (or not answered for
 * `unansweredMs`): Ponder's live sync can stop for good with no error after the node stalls
 * (docs/operations.md, "The indexer"). A node that does not answer is no reason to restart: only a
 * block that exists and is not taken in. After a silence of the node or the database that Ponder is
 * unlikely to get over, the window is `stallAfterSilenceMs` until it takes a block again. Nothing is restarted while
 * the database does not answer: a new Ponder could not start, and the old one may well go on once
 * the database answers, so the window for an unanswered indexer starts again then.
 */
export function watchIndexer(options: IndexerWatchOptions): { stop: () => Promise<void> } {
  const { log, checkEveryMs } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeStopped: () => void = () => {};
  let lastIndexed: bigint | undefined;
  /** When the indexed block last moved, or the watch (re)started. */
  let movedAt = Date.now();
  let behindSince: number | undefined;
  let nodeSilentSince: number | undefined;
  let databaseSilentSince: number | undefined;
  /** Since when the indexer has not answered. */
  let unansweredSince: number | undefined;
  /** Since when the database has answered; undefined while it does not. */
  let databaseAnsweringSince: number | undefined;
  /** Since the node answered again after a long silence, until the indexed block moves. */
  let afterSilence = false;
  /** A restart under way: the checks go on recording the lag meanwhile, and decide nothing. */
  let restarting: Promise<void> | undefined;

  function restart(reason: string, lag: Record<string, unknown>) {
    log.error(`${reason}: restarting the indexer`, lag);
    const restartedFrom = Date.now();
    restarting = options
      .restart()
      .then(
        () => log.warn("indexer restarted", { ...lag, restart_ms: Date.now() - restartedFrom }),
        (error: unknown) => log.error("indexer restart failed", { error: (error as Error).name }),
      )
      .finally(() => {
        movedAt = Date.now();
        afterSilence = false;
        restarting = undefined;
      });
  }

  async function check() {
    const [chainHead, indexedBlock, databaseAnswers] = await Promise.all([
      options.readChainHead().catch(() => undefined),
      options.readIndexedBlock().catch(() => undefined),
      options.pingDatabase().then(
        () => true,
        () => false,
      ),
    ]);
    const now = Date.now();
    databaseAnsweringSince = databaseAnswers ? (databaseAnsweringSince ?? now) : undefined;
    const nodeSilentMs = silenceEnded(nodeSilentSince, chainHead !== undefined, now);
    nodeSilentSince = chainHead === undefined ? (nodeSilentSince ?? now) : undefined;
    const databaseSilentMs = silenceEnded(databaseSilentSince, databaseAnswers, now);
    databaseSilentSince = databaseAnswers ? undefined : (databaseSilentSince ?? now);
    for (const [dependency, silentMs] of [
      ["chain node", nodeSilentMs],
      ["database", databaseSilentMs],
    ] as const) {
      if (silentMs < options.silenceMs || afterSilence) continue;
      afterSilence = true;
      log.warn(
        `${dependency} answers again after a silence: the indexer must take its next block soon`,
        {
          silent_ms: silentMs,
          stall_ms: options.stallAfterSilenceMs,
        },
      );
    }
    unansweredSince = indexedBlock === undefined ? (unansweredSince ?? now) : undefined;
    if (indexedBlock !== undefined && indexedBlock !== lastIndexed) {
      lastIndexed = indexedBlock;
      movedAt = now;
      afterSilence = false;
    }
    const behind =
      chainHead !== undefined && (indexedBlock === undefined || indexedBlock < chainHead);
    behindSince = behind ? (behindSince ?? now) : undefined;
    options.onProgress?.({ indexedBlock: indexedBlock ?? lastIndexed, chainHead, behindSince });
    if (restarting || behindSince === undefined || databaseAnsweringSince === undefined) return;
    if (unansweredSince !== undefined) {
      const waitingSince = Math.max(unansweredSince, behindSince, databaseAnsweringSince);
      if (now - waitingSince < options.unansweredMs) return;
    } else {
      const stallMs = afterSilence ? options.stallAfterSilenceMs : options.stallMs;
      if (now - Math.max(behindSince, movedAt) < stallMs) return;
    }

    restart("indexer stalled", {
      indexed_block: indexedBlock ?? lastIndexed,
      chain_head: chainHead,
      behind_ms: now - behindSince,
      standing_still_ms: now - movedAt,
      after_silence: afterSilence,
      answers: unansweredSince === undefined,
    });
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
      await restarting;
    },
  };
}

/** How long a silence that ended with this check lasted (0 while it goes on, or when there was none). */
function silenceEnded(silentSince: number | undefined, answers: boolean, now: number): number {
  return answers && silentSince !== undefined ? now - silentSince : 0;
}
