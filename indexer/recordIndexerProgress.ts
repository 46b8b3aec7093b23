import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { indexerProgress } from "../lib/db/appSchema.ts";
import { isUndefinedTable } from "../lib/db/undefinedTable.ts";
import type { Logger } from "../lib/log.ts";
import type { IndexerProgress } from "./watchIndexer.ts";

/**
 * Writes each check's progress to `app.indexer_progress`, one write at a time: a check that comes
 * while the last write still waits (a stalled Postgres) is skipped, not queued.
 */
export function indexerProgressRecorder(databaseUrl: string, viewsSchema: string, log: Logger) {
  const client = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { application_name: "indexer supervisor" },
  });
  const db = drizzle(client, { casing: "snake_case" });
  let writing = false;

  function record({ indexedBlock, chainHead, behindSince }: IndexerProgress) {
    if (writing) return;
    writing = true;
    const row = {
      indexedBlock: indexedBlock ?? null,
      chainHead: chainHead ?? null,
      behindSince: behindSince === undefined ? null : new Date(behindSince),
      checkedAt: new Date(),
    };
    db.insert(indexerProgress)
      .values({ viewsSchema, ...row })
      .onConflictDoUpdate({ target: indexerProgress.viewsSchema, set: row })
      .catch((error: unknown) => {
        // Until the API has migrated the app schema at its first start, there is nowhere to write.
        if (isUndefinedTable(error)) return;
        log.warn("indexer progress not recorded", {
          reason: (error as { code?: string }).code ?? (error as Error).name,
        });
      })
      .finally(() => {
        writing = false;
      });
  }
  return { record, close: () => client.end({ timeout: 1 }) };
}
