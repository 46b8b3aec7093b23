import postgres from "postgres";
import { countedTransactions } from "../../lib/db/transactionCount.ts";

/**
 * Exactly one settling process at a time: the one holding a Postgres session advisory lock on a
 * connection of its own. The lock lives as long as that connection, so a leader that dies (or loses
 * its connection) loses it, and a standby's next attempt takes it.
 */
export function settlementLeadership(databaseUrl: string) {
  const sql = postgres(databaseUrl, {
    max: 1,
    // The connection is the lock: never recycled on a timer (0 turns postgres.js's off).
    max_lifetime: 0,
    onnotice: () => {},
    ...countedTransactions(),
    // Names the process holding the lock, for operators (and tests) reading pg_stat_activity.
    connection: { application_name: `settlement ${process.pid}` },
  });
  /** The server process of the session that took the lock, while this process believes it leads. */
  let session: number | undefined;

  /**
   * Whether the session that took the lock is still the connection's: a connection that dropped and
   * came back is a new session, without the lock.
   */
  async function leads(): Promise<boolean> {
    if (session === undefined) return false;
    const [row] = await sql<{ session: number }[]>`select pg_backend_pid() as session`;
    if (row?.session !== session) session = undefined;
    return session !== undefined;
  }

  /** Takes the lock if it is free; true when this process leads now. */
  async function tryLead(): Promise<boolean> {
    if (await leads()) return true;
    const [row] = await sql<{ taken: boolean; session: number }[]>`
      select pg_try_advisory_lock(hashtextextended('settlement-leader', 0)) as taken,
             pg_backend_pid() as session`;
    session = row?.taken ? row.session : undefined;
    return session !== undefined;
  }

  return {
    tryLead,
    leads,
    /** Ends the session, releasing the lock. */
    close: () => sql.end({ timeout: 5 }),
  };
}

export type SettlementLeadership = ReturnType<typeof settlementLeadership>;
