import { chmod, lstat, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canReach, type ServiceUser } from "./postgresServiceUser.ts";

// Persistent under /var/lib; the system's temp dir when /var/lib will not do.
const CANDIDATES = ["/var/lib/marketplace-postgres", join(tmpdir(), "marketplace-postgres")];

/**
 * `subdir` of a directory outside every home for what `user` must reach when root runs Postgres as
 * that user: owned and writable by root alone, reachable by `user`.
 */
export async function sharedPostgresDir(user: ServiceUser, subdir: string): Promise<string> {
  const refused: string[] = [];
  for (const candidate of CANDIDATES) {
    const problem = await problemWith(candidate, user);
    if (problem === undefined) {
      const dir = join(candidate, subdir);
      await makeReachable(dir);
      return dir;
    }
    refused.push(`  ${candidate}: ${problem}`);
  }
  throw new Error(
    [
      `Postgres refuses to run as root, so it runs as the "${user.name}" user, which cannot reach this project's directory; no directory for its binaries and cluster would do:`,
      ...refused,
      `Fix: make ${CANDIDATES[0]} a directory owned by root with mode 755 on a path the ${user.name} user can enter, or run as a user other than root, or (npm start) set DATABASE_URL to a Postgres of your own.`,
    ].join("\n"),
  );
}

async function problemWith(dir: string, user: ServiceUser): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true });
    const info = await lstat(dir);
    // The service user runs the binaries kept here: nobody but root may have put them there.
    if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
      return "not a directory that root alone owns and can write";
    }
    await chmod(dir, 0o755);
  } catch (error) {
    return String(error);
  }
  return canReach(user, dir) ? undefined : `the ${user.name} user cannot enter it`;
}

async function makeReachable(dir: string) {
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
}
