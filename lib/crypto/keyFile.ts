import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * A 32-byte key kept at `path` (mode 0600), created on first use: the embedded default's way to
 * keep sessions and sealed secrets readable across restarts without any configuration.
 */
export async function loadOrCreateKey(path: string): Promise<Buffer> {
  try {
    return Buffer.from((await readFile(path, "utf8")).trim(), "hex");
  } catch {
    await mkdir(dirname(path), { recursive: true });
    // `wx` fails if another process won the race; then read what it wrote.
    await writeFile(path, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" }).catch(
      () => {},
    );
    return Buffer.from((await readFile(path, "utf8")).trim(), "hex");
  }
}
