import { connectWithDeadlines } from "../lib/db/projections.ts";
import {
  DATABASE_CONNECTIONS,
  DATABASE_DEADLINE_MS,
  DATABASE_IDLE_IN_TRANSACTION_MS,
  DATABASE_STATEMENT_TIMEOUT_MS,
} from "./limits.ts";

/**
 * The API's own database handle: every call bounded by `DATABASE_DEADLINE_MS`, so a stalled server
 * is a 503 in seconds. Its connections are `api <pid>` in `pg_stat_activity`.
 */
export function connectApiDatabase(databaseUrl: string, viewsSchema: string) {
  return connectWithDeadlines(databaseUrl, viewsSchema, {
    size: DATABASE_CONNECTIONS,
    deadlineMs: DATABASE_DEADLINE_MS,
    statementTimeoutMs: DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionMs: DATABASE_IDLE_IN_TRANSACTION_MS,
    applicationName: `api ${process.pid}`,
  });
}
