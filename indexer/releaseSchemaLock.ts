import postgres from "postgres";

/**
 * Unlocks the schema a Ponder process indexed into, with the same statement Ponder's own shutdown
 * runs (`jsonb_set(value, '{is_locked}', to_jsonb(0))` on `_ponder_meta`). A Ponder killed before it
 * could run it leaves the schema locked until its heartbeat expires (25 s), and the next start waits
 * that long. Call it only once the process that held the lock has exited: a live Ponder would lose
 * the lock that keeps a second one out of its schema.
 */
export async function releaseSchemaLock(databaseUrl: string, schema: string): Promise<void> {
  const sql = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { application_name: "indexer supervisor" },
  });
  try {
    await sql`
      UPDATE ${sql(schema)}._ponder_meta
      SET value = jsonb_set(value, '{is_locked}', to_jsonb(0))
      WHERE key = 'app'`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}
