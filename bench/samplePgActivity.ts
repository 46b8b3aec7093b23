import postgres from "postgres";

export type PgActivity = {
  samples: number;
  /** Mean number of the application's backends running a statement. */
  meanActive: number;
  /** Of those backend-samples, the share waiting on a heavyweight lock (row or transaction lock). */
  lockShare: number;
  /** The most frequent wait events of active backends, e.g. "Lock:transactionid 42%". */
  topWaits: string;
  /** The statements seen waiting on a heavyweight lock, most frequent first, with their counts. */
  lockedStatements: [string, number][];
};

/**
 * Samples pg_stat_activity every `intervalMs` for the backends of the API's pool (`api <pid>`) and
 * the workers' (postgres.js's default name; Ponder uses another driver) until `stop()`.
 */
export function samplePgActivity(databaseUrl: string, intervalMs = 25) {
  const sql = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: "bench-sampler" },
  });
  let running = true;
  let samples = 0;
  let active = 0;
  const waits = new Map<string, number>();
  const locked = new Map<string, number>();
  const loop = (async () => {
    while (running) {
      // Sampling ends quietly when Postgres goes away under it (Ctrl-C stops services meanwhile).
      const rows = await sql<{ wait: string | null; statement: string }[]>`
        select wait_event_type || ':' || wait_event as wait,
          regexp_replace(left(query, 80), '\\s+', ' ', 'g') as statement
        from pg_stat_activity
        where (application_name = 'postgres.js' or application_name like 'api %')
          and state = 'active'`.catch(() => undefined);
      if (!rows) break;
      samples++;
      active += rows.length;
      for (const { wait, statement } of rows) {
        const name = wait ?? "CPU (no wait)";
        waits.set(name, (waits.get(name) ?? 0) + 1);
        if (name.startsWith("Lock:")) locked.set(statement, (locked.get(statement) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    stop: async (): Promise<PgActivity> => {
      running = false;
      await loop;
      await sql.end().catch(() => {});
      const locks = [...waits].filter(([name]) => name.startsWith("Lock:"));
      const lockCount = locks.reduce((sum, [, count]) => sum + count, 0);
      return {
        samples,
        meanActive: samples ? active / samples : 0,
        lockShare: active ? lockCount / active : 0,
        topWaits: [...waits]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([name, count]) => `${name} ${Math.round((100 * count) / active)}%`)
          .join(", "),
        lockedStatements: [...locked].sort((a, b) => b[1] - a[1]),
      };
    },
  };
}
