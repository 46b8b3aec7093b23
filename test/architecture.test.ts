// The layout's rules, checked on the source: which folders may import which, and one home per fact.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("..", import.meta.url).pathname;
const CODE_FOLDERS = [
  "api",
  "lib",
  "src",
  "workers",
  "scripts",
  "bench",
  "test",
  "devStack",
  "embedded",
];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

const files = CODE_FOLDERS.flatMap(sourceFiles).filter(
  (file) => !file.startsWith("lib/contracts/"),
);
const textOf = (file: string) => readFileSync(join(root, file), "utf8");

/** The project folders a file imports from, e.g. `lib` for `../../lib/db/appSchema.ts`. */
function importedFolders(file: string): Set<string> {
  const folders = new Set<string>();
  for (const [, specifier] of textOf(file).matchAll(/from\s+"([^"]+)"/g)) {
    if (!specifier?.startsWith(".")) continue;
    const target = relative(root, join(root, file, "..", specifier));
    folders.add(target.split("/")[0] as string);
  }
  return folders;
}

function importsOf(folder: string, forbidden: string[]) {
  return files
    .filter((file) => file.startsWith(`${folder}/`))
    .flatMap((file) =>
      [...importedFolders(file)].filter((f) => forbidden.includes(f)).map((f) => `${file} → ${f}`),
    );
}

describe("the layout", () => {
  it("keeps api/ and workers/ apart: they meet on the bus", () => {
    expect(importsOf("api", ["workers", "embedded"])).toEqual([]);
    expect(importsOf("workers", ["api", "embedded"])).toEqual([]);
  });

  it("keeps lib/ to what the API, workers and indexer share at run time", () => {
    expect(
      importsOf("lib", ["api", "workers", "scripts", "devStack", "embedded", "bench", "test"]),
    ).toEqual([]);
    const spawning = files.filter(
      (file) => file.startsWith("lib/") && /node:child_process/.test(textOf(file)),
    );
    expect(spawning).toEqual([]);
  });

  it("keeps sdk/ standalone: its sources import one another and the parsers its bundle carries", () => {
    // Server-sent events, the sign-in (EIP-4361) messages the client checks before it signs, and the
    // hashing, typed data and signature recovery of receipts (sdk/build.ts refuses a bundle importing
    // anything).
    const bundled = ["eventsource-parser", "viem"];
    const outside = sourceFiles("sdk/src").flatMap((file) =>
      [...textOf(file).matchAll(/from\s+"([^"]+)"/g)]
        .map(([, specifier]) => specifier as string)
        .filter((specifier) =>
          specifier.startsWith(".")
            ? !join(file, "..", specifier).startsWith("sdk/src/")
            : !bundled.some((name) => specifier === name || specifier.startsWith(`${name}/`)),
        )
        .map((specifier) => `${file} → ${specifier}`),
    );
    expect(outside).toEqual([]);
    expect(JSON.parse(textOf("sdk/package.json")).dependencies).toBeUndefined();
  });
});

describe("one definition of each fact", () => {
  const definitions = (pattern: RegExp) => files.filter((file) => pattern.test(textOf(file)));

  it.each([
    ["the rental models", /"one_time",\s*"subscription",\s*"per_query"/],
    ["the listing statuses", /"active",\s*"paused",\s*"closed"/],
    ["the credential statuses", /"active",\s*"expired",\s*"low_balance",\s*"revoked"/],
    ["the categories", /"finance",\s*"legal",\s*"coding",\s*"research",\s*"sales",\s*"content"/],
    ["the listing id derivation", /encodePacked\(\s*\["address",\s*"bytes32"\]/],
  ])("%s", (_fact, pattern) => {
    expect(definitions(pattern)).toEqual([expect.any(String)]);
  });
});

describe("the run ledger", () => {
  // Drizzle's builders on the runs table, and SQL naming it.
  const writesRuns =
    /\.(update|insert|delete)\(\s*runs\s*\)|\b(update|insert\s+into|delete\s+from)\s+(\$\{runs\}|app\.runs)\b/i;

  it("is the only writer of app.runs", () => {
    // Tests may stage a row as a crashed process leaves it (a lease run out, a lost publish): a
    // fault no ledger function makes on purpose.
    const staging = ["test/support/runs.ts", "test/settlement/settlementFixtures.ts"];
    const writers = files.filter(
      (file) =>
        !file.startsWith("lib/runLedger/") &&
        !file.endsWith(".test.ts") &&
        !staging.includes(file) &&
        writesRuns.test(textOf(file)),
    );
    expect(writers).toEqual([]);
  });

  it("sees a write where there is one", () => {
    expect(files.filter((file) => writesRuns.test(textOf(file)))).toContain(
      "lib/runLedger/finishRun.ts",
    );
  });
});
