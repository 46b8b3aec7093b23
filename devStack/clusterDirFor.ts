import { createHash } from "node:crypto";
import { readlink, realpath, rm, rmdir, symlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { canReach, type ServiceUser } from "./postgresServiceUser.ts";
import { sharedPostgresDir } from "./sharedPostgresDir.ts";

export type ClusterPlace = {
  dir: string;
  /** The cluster lives outside `dataDir`, which links to it. */
  outside: boolean;
};

/**
 * Where the cluster of `dataDir` lives: `dataDir/cluster`, unless the user running Postgres cannot
 * reach `dataDir` (a clone in root's 0700 home). Then it lives in the shared directory under a name
 * derived from `dataDir`'s path, so that clones never share one, and `dataDir/cluster` links to it.
 */
export async function clusterDirFor(dataDir: string, user?: ServiceUser): Promise<ClusterPlace> {
  const inPlace = join(dataDir, "cluster");
  const linked = await readlink(inPlace).catch(() => undefined);
  if (linked !== undefined) return { dir: resolve(dataDir, linked), outside: true };
  if (!user || canReach(user, dataDir)) return { dir: inPlace, outside: false };

  // An empty directory is what an earlier start that could not run initdb left behind.
  await rmdir(inPlace).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return;
    throw new Error(
      `${inPlace} holds a cluster that the "${user.name}" user, which runs Postgres as root, cannot reach: let it enter every directory above (chmod o+x), or move the cluster away to start a new one.`,
    );
  });
  const key = createHash("sha256")
    .update(await realpath(dataDir))
    .digest("hex")
    .slice(0, 16);
  const dir = join(await sharedPostgresDir(user, "clusters"), key);
  // Anything there belonged to a data directory at the same path that has since been deleted.
  await rm(dir, { recursive: true, force: true });
  await symlink(dir, inPlace);
  return { dir, outside: true };
}
