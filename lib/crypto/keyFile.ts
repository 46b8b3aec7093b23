import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * A 32-byte key kept at `path` (mode 0600), created on first use: the embedded default's way to
 * keep sessions and sealed secrets readable across restarts without any configuration.
 */
export async function loadOrCreateKey(path: string): Promise<Buffer> {
  const existing = await readKey(path);
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true });
  // `wx` fails if another process won the race; then read what it wrote.
  await writeFile(path, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    },
  );
  const created = await readKey(path);
  if (!created) throw new Error(`the key file ${path} vanished while it was being created`);
  return created;
}

async function readKey(path: string): Promise<Buffer | undefined> {
  try {
    return Buffer.from((await readFile(path, "utf8")).trim(), "hex");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
