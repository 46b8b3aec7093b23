import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { access, chmod, chown, copyFile, mkdir, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadOrCreateKey } from "../lib/crypto/keyFile.ts";
import { initialise } from "./initdb.ts";
import type { PostgresBuild } from "./packagedPostgres.ts";
import type { ServiceUser } from "./postgresServiceUser.ts";

const TEMPLATES = join(tmpdir(), "marketplace-postgres-templates");

/**
 * Makes `clusterDir` a copy of a throwaway cluster initialised once per Postgres build, with its
 * password in `passwordFile`: initdb costs a second, the copy a quarter of that, and tests
 * start a cluster by the hundred. Every copy has the template's password; throwaway clusters listen
 * on loopback only and hold nothing that outlives a test.
 */
export async function copyClusterTemplate({
  build,
  initdb,
  user,
  clusterDir,
  passwordFile,
}: {
  build: PostgresBuild;
  initdb: string;
  user?: ServiceUser;
  clusterDir: string;
  passwordFile: string;
}): Promise<void> {
  const template = join(TEMPLATES, `${build.version}-${user?.uid ?? process.getuid?.()}`);
  if (!(await exists(join(template, "cluster", "PG_VERSION")))) {
    await makeTemplate(template, initdb, user);
  }
  // As root, `cp -a` keeps the service user's ownership and the cluster's modes.
  await promisify(execFile)("cp", ["-a", `${join(template, "cluster")}/.`, clusterDir]);
  await copyFile(join(template, "password"), passwordFile);
  await chmod(passwordFile, 0o600);
}

/** Initialised aside and renamed into place: a copy never sees half a template. */
async function makeTemplate(template: string, initdb: string, user?: ServiceUser) {
  await mkdir(TEMPLATES, { recursive: true, mode: 0o755 });
  await chmod(TEMPLATES, 0o755);
  const aside = `${template}.${process.pid}-${randomBytes(4).toString("hex")}`;
  const clusterDir = join(aside, "cluster");
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  await chmod(aside, 0o755);
  if (user) await chown(clusterDir, user.uid, user.gid);
  try {
    const password = (await loadOrCreateKey(join(aside, "password"))).toString("hex");
    await initialise(initdb, { clusterDir, user, ephemeral: true, password });
    // Another process's template may have won the race; either serves.
    await rename(aside, template).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
}

function exists(path: string) {
  return access(path).then(
    () => true,
    () => false,
  );
}
