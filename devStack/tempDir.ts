import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A new directory under the system's temp dir, and how to remove it. */
export async function makeTempDir(
  prefix: string,
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `marketplace-${prefix}-`));
  // As root, Postgres runs as the `postgres` user, which must reach the cluster inside.
  await chmod(dir, 0o755);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
