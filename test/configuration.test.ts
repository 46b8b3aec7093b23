// `.env` as a process started in its folder reads it: loaded under the environment, which wins, and
// a variable that looks like a misspelling of a known one named with the known one. The worker
// entry point is started with no database to reach: what it says of its environment is enough.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { unknownVariables } from "../lib/unknownVariables.ts";

const workerEntry = fileURLToPath(new URL("../workers/main.ts", import.meta.url));
const folder = mkdtempSync(join(tmpdir(), "dotenv-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What the worker entry prints when started in a folder whose `.env` holds `file`, under `env`. */
function startWorkerWith(file: string, env: Record<string, string>): string {
  writeFileSync(join(folder, ".env"), file);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^[A-Z]/.test(name) || name === "PATH"),
  );
  const result = spawnSync(process.execPath, [workerEntry], {
    cwd: folder,
    env: { ...inherited, ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return `${result.stdout}${result.stderr}`;
}

describe(".env", () => {
  it("is loaded, and a variable set in the environment wins over it", () => {
    const fromFile = startWorkerWith("NATS_URL=http://file.example\nWORKER_CONCURRENCY=0\n", {});
    expect(fromFile).toMatch(/NATS_URL: must be nats:\/\/ URLs/);
    expect(fromFile).toMatch(/WORKER_CONCURRENCY:/);
    const envWins = startWorkerWith("NATS_URL=http://file.example\nWORKER_CONCURRENCY=0\n", {
      NATS_URL: "nats://127.0.0.1:4222",
    });
    expect(envWins).toMatch(/Invalid environment/);
    expect(envWins).not.toMatch(/NATS_URL:/);
    expect(envWins).toMatch(/WORKER_CONCURRENCY:/);
  });

  it("warns of a misspelt variable, from the file or the environment, naming the closest known one", () => {
    const output = startWorkerWith("API_PROT=8080\n", { RUN_LEASE_MZ: "1000" });
    const warnings = output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line))
      .filter(({ level }) => level === "warn")
      .map(({ variable, closest }) => ({ variable, closest }));
    expect(warnings).toEqual(
      expect.arrayContaining([
        { variable: "API_PROT", closest: "API_PORT" },
        { variable: "RUN_LEASE_MZ", closest: "RUN_LEASE_MS" },
      ]),
    );
  });
});

describe("unknown variables", () => {
  it("are taken for ours only when they start like one and lie within a few edits of it", () => {
    const known = ["API_PORT", "POSTGRES_PORT", "OPENAI_BASE_URL", "DATABASE_URL"];
    const source = {
      API_PORT: "1",
      API_PROT: "1",
      DATABASE_URI: "x",
      OPENAI_API_KEY: "k",
      POSTGRES_PASSWORD: "p",
      HOME: "/root",
    };
    expect(unknownVariables(source, known)).toEqual([
      { name: "API_PROT", closest: "API_PORT" },
      { name: "DATABASE_URI", closest: "DATABASE_URL" },
    ]);
  });
});
