import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { POSTGRES_USER } from "./postgresPassword.ts";
import type { ServiceUser } from "./postgresServiceUser.ts";

// English server messages whatever the locale, so errors quoting them read the same everywhere.
export const POSTGRES_ENV = { ...process.env, LC_MESSAGES: "C" };

/** Makes a new cluster in `clusterDir` whose superuser's password is `password`, checked by SCRAM. */
export async function initialise(
  initdb: string,
  {
    clusterDir,
    user,
    ephemeral,
    password,
  }: { clusterDir: string; user?: ServiceUser; ephemeral: boolean; password: string },
) {
  // Beside the cluster, where the user running initdb can read it.
  const passwordFile = join(dirname(clusterDir), `.initdb-${randomBytes(6).toString("hex")}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (user) await chown(passwordFile, user.uid, user.gid);
    await promisify(execFile)(
      initdb,
      [
        `--pgdata=${clusterDir}`,
        "--auth=scram-sha-256",
        `--username=${POSTGRES_USER}`,
        `--pwfile=${passwordFile}`,
        "--encoding=UTF8",
        "--lc-messages=C",
        ...(ephemeral ? ["--no-sync"] : []),
      ],
      { cwd: dirname(clusterDir), env: POSTGRES_ENV, uid: user?.uid, gid: user?.gid },
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
}
