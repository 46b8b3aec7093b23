import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * A 32-byte key kept at `path` (mode 0600), created on first use: the embedded default's way to
 * keep sessions and sealed secrets readable across restarts without any configuration.
 */
export async function loadOrCreateKey(path: string): Promise<Buffer> {
  const existing = await readKey(path);
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true });
  // Written aside, then linked into place: a reader never sees half a key, and when another process
  // wins the race (the link exists), its key is the one read below.
  const aside = `${path}.${process.pid}-${randomBytes(4).toString("hex")}`;
  await writeFile(aside, randomBytes(32).toString("hex"), { mode: 0o600 });
  try {
    await link(aside, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  } finally {
    await rm(aside, { force: true });
  }
  const created = await readKey(path);
  if (!created) throw new Error(`the key file ${path} vanished while it was being created`);
  return created;
}

/** The key kept at `path`, which must exist: for a key that must not be made up when missing. */
export async function readKeyFile(path: string): Promise<Buffer> {
  const key = await readKey(path);
  if (!key) throw new Error(`there is no key file at ${path}`);
  return key;
}

async function readKey(path: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = (await readFile(path, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (!/^[0-9a-f]{64}$/i.test(text)) {
    throw new Error(`${path} must hold a 32-byte key as 64 hex characters; it does not`);
  }
  return Buffer.from(text, "hex");
}
