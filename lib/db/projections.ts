import { setDatabaseSchema } from "@ponder/client";
import { getTableConfig } from "drizzle-orm/pg-core";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as projections from "../../ponder.schema.ts";

export { projections };

/**
 * Drizzle over the indexer's stable views schema, the one way other processes read projections:
 * a re-index swaps the views to a new deployment schema without readers noticing. It points the
 * shared table objects at `viewsSchema`, so a process reads one views schema.
 */
export function connectProjections(databaseUrl: string, viewsSchema = "marketplace") {
  setDatabaseSchema(projections, viewsSchema);
  const client = postgres(databaseUrl, { max: 10, onnotice: () => {} });
  const db = drizzle(client, { schema: projections, casing: "snake_case" });
  return { db, close: () => client.end() };
}

/** The views schema this process reads projections from (`connectProjections`). */
export function projectionsSchema(): string {
  return getTableConfig(projections.listing).schema ?? "public";
}

/** The one database handle: the `app` schema and the indexer's views. */
export type Database = PostgresJsDatabase<typeof projections>;
/** The same handle, named for code that only reads projections. */
export type ProjectionsDb = Database;
