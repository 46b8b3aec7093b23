import { execFileSync, spawnSync } from "node:child_process";
import { resolve } from "node:path";

export type ServiceUser = { name: string; uid: number; gid: number };

const NAME = "postgres";

/**
 * Who runs Postgres: the invoking user (undefined), except root, which Postgres refuses to run as;
 * root runs it as the `postgres` system user, created if missing.
 */
export function postgresServiceUser(): ServiceUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = idsOf(NAME);
  if (existing) return existing;
  try {
    execFileSync("groupadd", ["--force", "--system", NAME], { stdio: "pipe" });
    execFileSync("useradd", ["--system", "--gid", NAME, "--no-create-home", NAME], {
      stdio: "pipe",
    });
  } catch (error) {
    throw new Error(
      `Postgres refuses to run as root, and creating the "${NAME}" system user to run it failed: ${String(error)}. Create it (useradd --system ${NAME}) or run as another user.`,
    );
  }
  const created = idsOf(NAME);
  if (!created) throw new Error(`the "${NAME}" user is still missing after useradd`);
  return created;
}

/**
 * Whether `user` can reach `path` (search every directory on the way, execute a file), checked by
 * running `test -x` as that user, exactly as the server will be run.
 */
export function canReach(user: ServiceUser, path: string): boolean {
  // Absolute: a relative path would be judged from here, skipping the directories above.
  return spawnSync("test", ["-x", resolve(path)], { uid: user.uid, gid: user.gid }).status === 0;
}

function idsOf(name: string): ServiceUser | undefined {
  try {
    const id = (flag: string) =>
      Number(execFileSync("id", [flag, name], { stdio: "pipe" }).toString());
    return { name, uid: id("-u"), gid: id("-g") };
  } catch {
    return undefined;
  }
}
