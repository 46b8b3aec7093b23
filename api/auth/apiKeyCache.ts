import { and, eq, isNull } from "drizzle-orm";
import type { Address } from "viem";
import { type ApiKeyScope, isApiKeyScope } from "../../lib/auth/apiKeyScopes.ts";
import { type SpendLimits, spendLimitsOf } from "../../lib/auth/spendLimits.ts";
import { apiKeys } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { API_KEY_CACHE_SIZE, API_KEY_REVALIDATE_MS } from "../limits.ts";
import type { PostgresListener } from "../process/postgresListener.ts";

/** Sent by a trigger on `app.api_keys` when a key stops being usable; the payload is its id. */
export const API_KEY_REVOKED_CHANNEL = "api_key_revoked";

/** What the lookup by hash returns for a key that is not revoked. */
export type ActiveKey = {
  id: string;
  wallet: Address;
  scopes: readonly ApiKeyScope[];
  limits: SpendLimits;
};

type Entry = { key: ActiveKey; checkedAt: number };

export type ApiKeyCache = ReturnType<typeof createApiKeyCache>;

/**
 * Active API keys by hash, so that a request with a known key needs no database round trip. A
 * revocation's notice drops its key before the process serves another request with it; a notice
 * can only be missed while the listener is not listening, and then nothing is cached (and all of it
 * is dropped when listening resumes). A listen connection that failed without the process knowing
 * is covered by asking Postgres again after `API_KEY_REVALIDATE_MS`. Unknown keys are never cached:
 * a key created in another process works at once.
 */
export function createApiKeyCache({
  db,
  listener,
  onRevoked,
}: {
  db: Database;
  listener: PostgresListener;
  /** Called once a revoked key is dropped, with its id. */
  onRevoked: (keyId: string) => void;
}) {
  /** By key hash, in the order they were last checked. */
  const entries = new Map<string, Entry>();
  const hashById = new Map<string, string>();
  const lookups = new Map<string, { since: number; answer: Promise<ActiveKey | undefined> }>();
  /** By key id, what to call when the key's revocation is heard. */
  const revocationWatchers = new Map<string, Set<() => void>>();
  /** Changes whenever cached answers may have become wrong: a lookup begun before must not stay. */
  let epoch = 0;

  const forget = (keyHash: string) => {
    const entry = entries.get(keyHash);
    entries.delete(keyHash);
    if (entry) hashById.delete(entry.key.id);
  };
  const forgetAll = () => {
    epoch += 1;
    entries.clear();
    hashById.clear();
  };
  listener.on(API_KEY_REVOKED_CHANNEL, (keyId) => {
    epoch += 1;
    const keyHash = hashById.get(keyId);
    if (keyHash) forget(keyHash);
    onRevoked(keyId);
    for (const watcher of revocationWatchers.get(keyId) ?? []) watcher();
  });
  listener.onListening(forgetAll);
  listener.onLost(forgetAll);

  async function lookUp(keyHash: string, since: number): Promise<ActiveKey | undefined> {
    const checkedAt = performance.now();
    const [key] = await db
      .select({
        id: apiKeys.id,
        wallet: apiKeys.wallet,
        scopes: apiKeys.scopes,
        dailySpendCapWei: apiKeys.dailySpendCapWei,
        allowedListings: apiKeys.allowedListings,
      })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
    forget(keyHash);
    if (key && since === epoch && listener.isListening()) {
      if (entries.size >= API_KEY_CACHE_SIZE) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) forget(oldest);
      }
      entries.set(keyHash, { key: activeKey(key), checkedAt });
      hashById.set(key.id, keyHash);
    }
    return key && activeKey(key);
  }

  return {
    /**
     * The active key with this SHA-256, or undefined if there is none (unknown or revoked): at once,
     * not with a promise, when the cache holds it.
     */
    find(keyHash: string): ActiveKey | Promise<ActiveKey | undefined> {
      const entry = entries.get(keyHash);
      if (entry && performance.now() - entry.checkedAt < API_KEY_REVALIDATE_MS) return entry.key;
      // Concurrent misses share one lookup, unless it began before something changed.
      const pending = lookups.get(keyHash);
      if (pending?.since === epoch) return pending.answer;
      const since = epoch;
      const answer = lookUp(keyHash, since).finally(() => {
        if (lookups.get(keyHash)?.answer === answer) lookups.delete(keyHash);
      });
      lookups.set(keyHash, { since, answer });
      return answer;
    },
    /**
     * Calls `onRevoked` when this process hears that the key `keyId` was revoked (a notice missed
     * while not listening is not heard); answers the function that stops watching.
     */
    watchRevocation(keyId: string, onRevoked: () => void): () => void {
      const watchers = revocationWatchers.get(keyId) ?? new Set();
      revocationWatchers.set(keyId, watchers.add(onRevoked));
      return () => {
        watchers.delete(onRevoked);
        if (watchers.size === 0 && revocationWatchers.get(keyId) === watchers) {
          revocationWatchers.delete(keyId);
        }
      };
    },
  };
}

function activeKey(
  key: { id: string; wallet: string; scopes: string[] } & Parameters<typeof spendLimitsOf>[0],
): ActiveKey {
  return {
    id: key.id,
    wallet: key.wallet as Address,
    scopes: key.scopes.filter(isApiKeyScope),
    limits: spendLimitsOf(key),
  };
}
