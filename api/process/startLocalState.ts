import { type Database, projectionsSchema } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { createApiKeyCache } from "../auth/apiKeyCache.ts";
import { createRevocationReceipts } from "../auth/revocationReceipts.ts";
import { indexerLagReader } from "../indexer/indexerLag.ts";
import { createCatalogueCache } from "../listings/catalogueCache.ts";
import { followListedVersions } from "../listings/followListedVersions.ts";
import { createLeasedBudgets } from "../rateLimit/leasedBudgets.ts";
import { createPostgresListener } from "./postgresListener.ts";

/**
 * What an API process keeps in memory so that a request needs no database round trip (API keys
 * found by hash, rate-limit units leased ahead), kept coherent with the other API processes through
 * Postgres notices heard on one listen connection. `stop()` gives leased units back.
 */
export function startLocalState({
  db,
  databaseUrl,
  log,
}: {
  db: Database;
  databaseUrl: string;
  log: Logger;
}) {
  const listener = createPostgresListener({ databaseUrl, log });
  const revocations = createRevocationReceipts({ db, listener, log });
  const apiKeys = createApiKeyCache({ db, listener, onRevoked: revocations.confirm });
  const budgets = createLeasedBudgets({ db, listener, log });
  const catalogue = createCatalogueCache({ listener, viewsSchema: projectionsSchema() });
  followListedVersions({ db, listener, viewsSchema: projectionsSchema(), log });
  const indexer = indexerLagReader(db, projectionsSchema());
  listener.start();
  return {
    apiKeys,
    revocations,
    budgets,
    catalogue,
    indexer,
    /** Resolves once notices are heard: until then nothing is cached and no block is leased. */
    whenListening: listener.whenListening,
    stop: async () => {
      await budgets.stop();
      await listener.stop();
    },
  };
}

export type LocalState = ReturnType<typeof startLocalState>;
