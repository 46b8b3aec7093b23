import { execFileSync } from "node:child_process";
import { access, cp, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PostgresBuild } from "./packagedPostgres.ts";
import { canReach, type ServiceUser } from "./postgresServiceUser.ts";
import { sharedPostgresDir } from "./sharedPostgresDir.ts";

/**
 * The home of a PostgreSQL build that `user` can run: the installed one, or else (a clone in root's
 * 0700 home) a copy kept once per version in the shared directory.
 */
export async function reachableBuild(build: PostgresBuild, user?: ServiceUser): Promise<string> {
  if (!user || canRun(user, build.home)) return build.home;
  const copy = join(await sharedPostgresDir(user, "builds"), build.version);
  if (!(await exists(join(copy, "bin", "postgres")))) await copyOnce(build.home, copy);
  if (!canRun(user, copy)) {
    throw new Error(
      `The "${user.name}" user, which runs Postgres as root, cannot run the copy of PostgreSQL in ${copy}: delete it to have it copied again.`,
    );
  }
  return copy;
}

function canRun(user: ServiceUser, home: string) {
  return ["initdb", "postgres"].every((binary) => canReach(user, join(home, "bin", binary)));
}

/** Copies under another name and renames, so concurrent starts never see half a copy. */
async function copyOnce(from: string, to: string) {
  const partial = `${to}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await cp(from, partial, { recursive: true, verbatimSymlinks: true });
  execFileSync("chmod", ["-R", "a+rX", partial]);
  try {
    await rename(partial, to);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    if (!(await exists(to))) throw error; // else another start finished the same copy first
  }
}

function exists(path: string) {
  return access(path).then(
    () => true,
    () => false,
  );
}
