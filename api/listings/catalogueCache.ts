import { CATALOGUE_ANSWER_MAX_AGE_MS, CATALOGUE_ANSWERS_KEPT } from "../limits.ts";
import type { PostgresListener } from "../process/postgresListener.ts";

/** Sent by a trigger on `app.agents`, at the commit of whatever changed it. */
export const AGENTS_CHANGED_CHANNEL = "agents_changed";
/** Sent by a trigger on `app.listing_ratings`, at the commit of a review that changed it. */
export const RATINGS_CHANGED_CHANNEL = "listing_ratings_changed";
/** Sent by a trigger on `app.execution_limits`, at the commit of a creator's new limit. */
export const EXECUTION_LIMITS_CHANGED_CHANNEL = "execution_limits_changed";

/**
 * Sent by Ponder at the commit of each block it indexes live: its live-query trigger on its
 * checkpoint table, which it updates in the same transaction as the block's rows.
 */
export function indexedBlockChannel(viewsSchema: string): string {
  return `${viewsSchema}_live_query`;
}

export type CatalogueCache = ReturnType<typeof createCatalogueCache>;

type Generation = { startedAt: number; answers: Map<string, Promise<unknown>> };

/**
 * Catalogue answers (searches, listings, what executions need of a listing) kept in the process
 * from one change of the catalogue to the next: a notice of an indexed block, a changed agent,
 * rating or execution limit starts afresh, and identical
 * requests in between share one load, finished or in flight. A notice can only be missed while the
 * listener is not listening, and then nothing is kept. A change that sends no notice (a reorg
 * Ponder reverts before indexing the new head, a views schema moved to a new build) shows within
 * `maxAgeMs`, after which every answer is loaded again.
 */
export function createCatalogueCache({
  listener,
  viewsSchema,
  maxAgeMs = CATALOGUE_ANSWER_MAX_AGE_MS,
}: {
  listener: PostgresListener;
  viewsSchema: string;
  maxAgeMs?: number;
}) {
  let generation = fresh();
  const watchers = new Set<() => void>();
  const startAfresh = () => {
    generation = fresh();
  };
  const changed = () => {
    startAfresh();
    for (const watcher of watchers) watcher();
  };
  listener.on(indexedBlockChannel(viewsSchema), changed);
  listener.on(AGENTS_CHANGED_CHANNEL, changed);
  listener.on(RATINGS_CHANGED_CHANNEL, changed);
  listener.on(EXECUTION_LIMITS_CHANGED_CHANNEL, changed);
  listener.onListening(changed);
  listener.onLost(changed);

  return {
    /** This process changed the catalogue: its next requests see the change without the notice. */
    changed,
    /**
     * Calls `watcher` at each notice that the catalogue may have changed, and when listening is lost
     * or resumes (not when answers merely grew old); answers the function that stops it.
     */
    watch(watcher: () => void): () => void {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    /** The answer kept under `key`, or `load()`'s, kept for the requests that follow. */
    answer<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (!listener.isListening()) return load();
      if (
        Date.now() - generation.startedAt > maxAgeMs ||
        generation.answers.size >= CATALOGUE_ANSWERS_KEPT
      ) {
        startAfresh();
      }
      const { answers } = generation;
      const kept = answers.get(key) as Promise<T> | undefined;
      if (kept) return kept;
      const loading = load();
      answers.set(key, loading);
      // A failed load is not kept: the next request tries again.
      loading.catch(() => {
        if (answers.get(key) === loading) answers.delete(key);
      });
      return loading;
    },
  };
}

function fresh(): Generation {
  return { startedAt: Date.now(), answers: new Map() };
}
