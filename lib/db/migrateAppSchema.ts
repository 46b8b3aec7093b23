import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

/** Applies the `app` schema's migrations; an advisory lock lets several processes start at once. */
export async function migrateAppSchema(databaseUrl: string): Promise<void> {
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(hashtext('app-schema-migrations'))`;
    await migrate(drizzle(client), { migrationsFolder });
  } finally {
    await client.end();
  }
}
