import { createHash } from "node:crypto";
import postgres from "postgres";

/** The role Ponder connects as: it owns the indexer's schemas and has no right on `app`. */
export const INDEXER_ROLE = "marketplace_indexer";
/** Ponder's RPC cache, a schema of its own beside the indexed and views schemas. */
const PONDER_SYNC_SCHEMA = "ponder_sync";

/**
 * Finding L-10: Ponder serves `/sql` and `/graphql` from pools that all use the one connection
 * string it is given, so it is given a role that can create and own its schemas and cannot read the
 * money path (`app`, where the API keys, runs and settlement live; nothing there is granted to it).
 * Creates the role where it is missing, through `adminUrl`, and answers the connection string for
 * it. Its password is derived from the admin's, so every Ponder on one database gets the same one.
 * The indexer's schemas left by Ponder under another role are dropped: it could not write to them,
 * and it rebuilds them from the chain.
 */
export async function indexerDatabaseUrl(
  adminUrl: string,
  schemas: { schema: string; viewsSchema: string },
): Promise<string> {
  const url = new URL(adminUrl);
  const password = createHash("sha256")
    .update(`${INDEXER_ROLE}:${decodeURIComponent(url.password)}`)
    .digest("hex");
  const sql = postgres(adminUrl, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 10,
    connection: { application_name: "indexer supervisor" },
  });
  try {
    await sql.begin(async (tx) => {
      // Two Ponders starting on one database would race to create the role.
      await tx`SELECT pg_advisory_xact_lock(hashtext(${INDEXER_ROLE}))`;
      const [role] = await tx`SELECT 1 FROM pg_roles WHERE rolname = ${INDEXER_ROLE}`;
      if (!role) await tx`CREATE ROLE ${tx(INDEXER_ROLE)} LOGIN`;
      // Hex only, so it cannot break out of the literal; a role's password takes no parameter.
      await tx.unsafe(`ALTER ROLE ${INDEXER_ROLE} WITH LOGIN PASSWORD '${password}'`);
      await tx`GRANT CONNECT, CREATE ON DATABASE ${tx(await currentDatabase(tx))} TO ${tx(INDEXER_ROLE)}`;
      // The API and the supervisor read and unlock what Ponder owns, also as an admin that is not a
      // superuser.
      await tx`GRANT ${tx(INDEXER_ROLE)} TO CURRENT_USER`;
      const foreign = await tx<{ name: string }[]>`
        SELECT nspname AS name FROM pg_namespace
        WHERE nspname IN ${tx([schemas.schema, schemas.viewsSchema, PONDER_SYNC_SCHEMA])}
          AND nspowner <> (SELECT oid FROM pg_roles WHERE rolname = ${INDEXER_ROLE})`;
      for (const { name } of foreign) await tx`DROP SCHEMA ${tx(name)} CASCADE`;
    });
  } finally {
    await sql.end({ timeout: 1 });
  }
  url.username = INDEXER_ROLE;
  url.password = password;
  return url.toString();
}

async function currentDatabase(sql: postgres.TransactionSql): Promise<string> {
  const [row] = await sql<{ name: string }[]>`SELECT current_database() AS name`;
  return row?.name ?? "";
}
