import { is, Table } from "drizzle-orm";
import { getTableConfig, isPgEnum } from "drizzle-orm/pg-core";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as projections from "../../ponder.schema.ts";
import { boundedPool } from "./boundedPool.ts";
import { countedTransactions } from "./transactionCount.ts";

export { projections };

/**
 * Drizzle over the indexer's stable views schema, the one way other processes read projections:
 * a re-index swaps the views to a new deployment schema without readers noticing. It points the
 * shared table objects at `viewsSchema`, so a process reads one views schema.
 */
export function connectProjections(databaseUrl: string, viewsSchema = "marketplace") {
  const client = postgres(databaseUrl, { max: 10, onnotice: () => {}, ...countedTransactions() });
  return { db: drizzleOver(client, viewsSchema), close: () => client.end() };
}

export type Deadlines = {
  /** Connections at most. */
  size: number;
  /** A call fails once the server has answered no call for this long (`boundedPool`)… */
  silenceMs: number;
  /** …nor a `select 1` of its own within this long. */
  probeMs: number;
  /** The server's own bound on a statement (a slow one below `silenceMs` ends with its own error). */
  statementTimeoutMs: number;
  /** The server ends a session idle inside a transaction this long (its client vanished). */
  idleInTransactionMs: number;
  /** Names the connections in `pg_stat_activity`. */
  applicationName: string;
};

/**
 * The same database for a request path, where every call has a deadline (`boundedPool`): a server
 * that stops answering fails calls within `silenceMs` instead of holding them. Work that may
 * rightly take long (migrations, workers, the settlement lock) uses `connectProjections`.
 */
export function connectWithDeadlines(databaseUrl: string, viewsSchema: string, limits: Deadlines) {
  const pool = boundedPool({
    size: limits.size,
    silenceMs: limits.silenceMs,
    probeMs: limits.probeMs,
    open: () =>
      postgres(databaseUrl, {
        max: 1,
        onnotice: () => {},
        // postgres.js reads a new connection's array types in a promise no one can handle: a
        // connection the pool ends in the middle of it (a silent server's) would end the process.
        // Nothing on the request path reads a Postgres array.
        fetch_types: false,
        ...countedTransactions(),
        connection: {
          application_name: limits.applicationName,
          statement_timeout: limits.statementTimeoutMs,
          idle_in_transaction_session_timeout: limits.idleInTransactionMs,
        },
      }),
  });
  return { db: drizzleOver(pool.client, viewsSchema), close: () => pool.close() };
}

function drizzleOver(client: postgres.Sql, viewsSchema: string): Database {
  pointAt(viewsSchema);
  return drizzle(client, { schema: projections, casing: "snake_case" });
}

/** drizzle's key for a table's schema (`Table.Symbol.Schema`, left out of its types). */
const TABLE_SCHEMA = Symbol.for("drizzle:Schema");

/** Points every projection table and enum at `viewsSchema`, as Ponder's client does. */
function pointAt(viewsSchema: string) {
  for (const object of Object.values(projections)) {
    if (is(object, Table)) {
      (object as unknown as Record<symbol, string>)[TABLE_SCHEMA] = viewsSchema;
    } else if (isPgEnum(object)) {
      (object as { schema: string | undefined }).schema = viewsSchema;
    }
  }
}

/** The views schema this process reads projections from (`connectProjections`). */
export function projectionsSchema(): string {
  return getTableConfig(projections.listing).schema ?? "public";
}

/** The one database handle: the `app` schema and the indexer's views. */
export type Database = PostgresJsDatabase<typeof projections>;
/** The same handle, named for code that only reads projections. */
export type ProjectionsDb = Database;
