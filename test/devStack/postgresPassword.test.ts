// The embedded Postgres takes no well-known password: its superuser's is random, kept beside the
// cluster in a file only its owner reads, and checked by SCRAM over TCP. A cluster made with the old
// `postgres/postgres` takes the new password on its next start and refuses the old one.
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../devStack/findFreePort.ts";
import { type Postgres, startPostgres } from "../../devStack/startPostgres.ts";
import { makeTempDir } from "../../devStack/tempDir.ts";

const temp = await makeTempDir("postgres-password");
const dataDir = join(temp.dir, "postgres");
const passwordFile = join(dataDir, "password");
const started: Postgres[] = [];
afterAll(async () => {
  for (const server of started) await server.stop();
  await temp.remove();
});

async function start(port: number) {
  const server = await startPostgres({ port, dataDir, ephemeral: true });
  started.push(server);
  return server;
}

/** What the server answers `password` for the superuser with: "ok" or its SQLSTATE. */
async function signInWith(port: number, password: string): Promise<string> {
  const sql = postgres(`postgresql://postgres:${password}@127.0.0.1:${port}/postgres`, {
    max: 1,
    connect_timeout: 5,
    onnotice: () => {},
  });
  try {
    await sql`select 1`;
    return "ok";
  } catch (error) {
    return String((error as { code?: string }).code);
  } finally {
    await sql.end();
  }
}

async function withServer<T>(server: Postgres, use: (sql: postgres.Sql) => Promise<T>) {
  const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    return await use(sql);
  } finally {
    await sql.end();
  }
}

const tcpAuthMethods = (server: Postgres) =>
  withServer(server, async (sql) => {
    const rules = await sql<{ method: string }[]>`
      select distinct auth_method as method from pg_hba_file_rules where type like 'host%'`;
    return rules.map((rule) => rule.method);
  });

describe("finding: the embedded Postgres's password", () => {
  it("is random, kept in a 0600 file, the one in the stack's DATABASE_URL, and checked by SCRAM", async () => {
    const port = await findFreePort();
    const server = await start(port);

    expect((await stat(passwordFile)).mode & 0o777).toBe(0o600);
    const kept = (await readFile(passwordFile, "utf8")).trim();
    expect(kept).toMatch(/^[0-9a-f]{64}$/);
    expect(server.password).toBe(kept);
    expect(new URL(server.databaseUrl).password).toBe(kept);

    expect(await signInWith(port, kept)).toBe("ok");
    // 28P01: invalid_password.
    expect(await signInWith(port, "postgres")).toBe("28P01");
    expect(await signInWith(port, "")).toBe("28P01");
    expect(await tcpAuthMethods(server)).toEqual(["scram-sha-256"]);
    await withServer(server, (sql) => sql`create table kept (note text)`);
    await server.stop();
  });

  it("replaces postgres/postgres in a cluster made before, keeping its data", async () => {
    const port = await findFreePort();
    // The cluster as it used to be made: the default password, plain password authentication over
    // TCP, and no password file.
    const before = await start(port);
    await withServer(before, async (sql) => {
      await sql.unsafe("alter role postgres password 'postgres'");
      await sql`insert into kept values ('from before')`;
    });
    const hbaFile = join(before.clusterDir, "pg_hba.conf");
    const hba = await readFile(hbaFile, "utf8");
    await writeFile(hbaFile, hba.replaceAll("scram-sha-256", "password"));
    await before.stop();
    await rm(passwordFile);
    expect(await signInWith(port, "postgres")).toBe("ECONNREFUSED");

    const after = await start(port);
    const password = (await readFile(passwordFile, "utf8")).trim();
    expect(password).not.toBe(before.password);
    expect(after.password).toBe(password);
    expect(await signInWith(port, password)).toBe("ok");
    expect(await signInWith(port, "postgres")).toBe("28P01");
    expect(await tcpAuthMethods(after)).toEqual(["scram-sha-256"]);
    expect(await withServer(after, (sql) => sql`select note from kept`)).toEqual([
      { note: "from before" },
    ]);
    await after.stop();
  });

  it("refuses to start a cluster that takes neither its password file's password nor the default", async () => {
    const port = await findFreePort();
    await writeFile(passwordFile, "ab".repeat(32), { mode: 0o600 });
    await expect(start(port)).rejects.toThrow(
      `refuses the password kept in ${passwordFile}: restore the file that goes with the cluster`,
    );
  });
});
