import { connectWithDeadlines } from "../../lib/db/projections.ts";
import {
  DATABASE_CONNECTIONS,
  DATABASE_IDLE_IN_TRANSACTION_MS,
  DATABASE_PROBE_MS,
  DATABASE_SILENCE_MS,
  DATABASE_STATEMENT_TIMEOUT_MS,
} from "../limits.ts";

/**
 * The API's own database handle: a call fails once the server has been silent for
 * `DATABASE_SILENCE_MS`, so a stalled server is a 503 in seconds. Its connections are `api <pid>`
 * in `pg_stat_activity`.
 */
export function connectApiDatabase(databaseUrl: string, viewsSchema: string) {
  return connectWithDeadlines(databaseUrl, viewsSchema, {
    size: DATABASE_CONNECTIONS,
    silenceMs: DATABASE_SILENCE_MS,
    probeMs: DATABASE_PROBE_MS,
    statementTimeoutMs: DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionMs: DATABASE_IDLE_IN_TRANSACTION_MS,
    applicationName: `api ${process.pid}`,
  });
}
