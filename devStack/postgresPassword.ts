import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import { loadOrCreateKey } from "../lib/crypto/keyFile.ts";

/** The superuser of the embedded cluster. */
export const POSTGRES_USER = "postgres";
/** What every embedded cluster used to be initialised with; refused once replaced. */
const DEFAULT_PASSWORD = "postgres";
// Postgres's SQLSTATE for a refused password.
const INVALID_PASSWORD = "28P01";

/**
 * The embedded cluster's superuser password: 32 random bytes as hex, kept in `dataDir/password`
 * (mode 0600), created once and atomically as the generated keys are.
 */
export async function postgresPassword(dataDir: string): Promise<string> {
  return (await loadOrCreateKey(join(dataDir, "password"))).toString("hex");
}

export function isPasswordRefused(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === INVALID_PASSWORD;
}

/**
 * A cluster initialised before the password file existed still takes `postgres/postgres` over
 * plain `password` authentication: its clients are moved to SCRAM and its password to `password`.
 * Each step is safe to repeat, so a start interrupted halfway finishes the move on the next one.
 */
export async function replaceDefaultPassword({
  port,
  clusterDir,
  password,
  passwordFile,
}: {
  port: number;
  clusterDir: string;
  password: string;
  passwordFile: string;
}): Promise<void> {
  const url = `postgresql://${POSTGRES_USER}:${DEFAULT_PASSWORD}@127.0.0.1:${port}/postgres`;
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql`select 1`.catch((error: unknown) => {
      if (!isPasswordRefused(error)) throw error;
      throw new Error(
        `the Postgres cluster in ${clusterDir} refuses the password kept in ${passwordFile}: restore the file that goes with the cluster, or move the cluster away to start a new one`,
      );
    });
    const hbaFile = join(clusterDir, "pg_hba.conf");
    await writeFile(hbaFile, withScramForTcp(await readFile(hbaFile, "utf8")));
    await sql`select pg_reload_conf()`;
    // Hex only, so it can stand in the statement: ALTER ROLE takes no parameters.
    if (!/^[0-9a-f]{64}$/.test(password)) throw new Error("the password must be 64 hex characters");
    await sql.unsafe(`alter role ${POSTGRES_USER} password '${password}'`);
  } finally {
    await sql.end();
  }
}

/** `pg_hba.conf` with every TCP rule (`host…`) authenticating by SCRAM instead of a plain password. */
function withScramForTcp(hba: string): string {
  return hba.replace(/^(\s*host\S*\s.*\s)(password|md5)(\s*)$/gm, "$1scram-sha-256$3");
}
