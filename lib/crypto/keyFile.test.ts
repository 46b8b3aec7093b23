import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadOrCreateKey, readKeyFile } from "./keyFile.ts";

const dir = await mkdtemp(join(tmpdir(), "marketplace-keys-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("finding: keys in production (key files)", () => {
  it("are created once, readable by their owner only, and the same for every concurrent reader", async () => {
    const path = join(dir, "nested", "key");
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateKey(path)));
    expect(new Set(keys.map((key) => key.toString("hex"))).size).toBe(1);
    expect(keys[0]).toHaveLength(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readFile(path, "utf8")).trim()).toBe(keys[0]?.toString("hex"));
  });

  it("refuse a file that does not hold exactly a 32-byte key", async () => {
    for (const text of ["abcd", "zz".repeat(32), "ab".repeat(33), ""]) {
      const path = join(dir, "short");
      await writeFile(path, text);
      await expect(loadOrCreateKey(path)).rejects.toThrow(/must hold a 32-byte key/);
    }
  });

  it("are only read, never made up, where a key must already exist", async () => {
    const path = join(dir, "absent");
    await expect(readKeyFile(path)).rejects.toThrow(`there is no key file at ${path}`);
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
    const existing = join(dir, "existing");
    const key = await loadOrCreateKey(existing);
    expect((await readKeyFile(existing)).equals(key)).toBe(true);
  });
});
