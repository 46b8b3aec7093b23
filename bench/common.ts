// Shared pieces of the indexer benchmarks: a throwaway local stack, raw JSON-RPC, statistics, tables.
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type Address, getAddress, keccak256, toHex } from "viem";
import { findFreePort } from "../devStack/findFreePort.ts";
import { type Anvil, rpcRequest, startAnvil } from "../devStack/startAnvil.ts";
import { type Ponder, startPonder } from "../devStack/startPonder.ts";
import { type Postgres, startPostgres } from "../devStack/startPostgres.ts";
import type { Deployment } from "../lib/chain/deployMarketplace.ts";
import { deployMarketplace } from "../lib/chain/deployMarketplace.ts";
import { writeDeployment } from "../lib/chain/deploymentFile.ts";
import { devAccount, devPrivateKey } from "../lib/chain/devAccounts.ts";

export { rpcRequest };

// BENCH_VERBOSE=1 streams what anvil, Postgres and Ponder print.
const verbose = Boolean(process.env.BENCH_VERBOSE);

/**
 * Runs `main` with a cleanup stack unwound exactly once: on success, on failure and on Ctrl-C (a
 * Ctrl-C also makes `main` fail; both paths await the same unwinding, and that failure is not
 * reported, being its consequence).
 */
export async function runBenchmark(main: (cleanup: Cleanup) => Promise<void>): Promise<void> {
  const cleanup = new Cleanup();
  let unwinding: Promise<void> | undefined;
  const unwind = () => {
    unwinding ??= cleanup.run();
    return unwinding;
  };
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    interrupted = true;
    console.error(`\n${signal}: stopping services`);
    void unwind().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    await main(cleanup);
  } catch (error) {
    if (!interrupted) {
      process.exitCode = 1;
      console.error(error);
    }
  } finally {
    await unwind();
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

export class Cleanup {
  private readonly steps: { name: string; step: () => Promise<unknown> }[] = [];

  add(name: string, step: () => Promise<unknown>) {
    this.steps.push({ name, step });
  }

  /** Unwinds in reverse order; one failing step does not keep the others from running. */
  async run() {
    while (this.steps.length > 0) {
      const { name, step } = this.steps.pop() as { name: string; step: () => Promise<unknown> };
      try {
        await step();
      } catch (error) {
        console.error(`cleanup of ${name} failed:`, error);
      }
    }
  }
}

export type Stack = {
  dir: string;
  anvil: Anvil;
  pg: Postgres;
  deployment: Deployment;
  deploymentFile: string;
  authority: Address;
  /** A database URL for `database` in the same cluster, created on first use. */
  databaseUrl: (database: string) => Promise<string>;
};

/** Anvil (auto-mine), an ephemeral Postgres and a fresh marketplace, each stopped by `cleanup`. */
export async function startStack(cleanup: Cleanup): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), "marketplace-bench-"));
  cleanup.add("temp dir", () => rm(dir, { recursive: true, force: true }));
  // As root, Postgres runs as the `postgres` user, which must reach the cluster inside.
  await chmod(dir, 0o755);
  const onOutput = verbose ? (line: string) => process.stderr.write(line) : undefined;

  const anvil = await startAnvil({ port: await findFreePort(), onOutput });
  cleanup.add("anvil", () => anvil.stop());
  const pg = await startPostgres({
    port: await findFreePort(),
    dataDir: join(dir, "postgres"),
    ephemeral: true,
    onOutput,
  });
  cleanup.add("postgres", () => pg.stop());

  const authority = devAccount(0).address;
  const deployment = await deployMarketplace({
    rpcUrl: anvil.rpcUrl,
    deployerKey: devPrivateKey(0),
    authority,
    feeRecipient: devAccount(1).address,
  });
  const deploymentFile = join(dir, "deployment.json");
  await writeDeployment(deploymentFile, deployment);
  // Any address may send: renters are made-up addresses funded with anvil_setBalance.
  await rpcRequest(anvil.rpcUrl, "anvil_autoImpersonateAccount", [true]);

  const created = new Set<string>(["marketplace"]);
  const databaseUrl = async (database: string) => {
    const url = pg.databaseUrl.replace(/\/marketplace$/, `/${database}`);
    if (!created.has(database)) {
      const sql = postgres(pg.databaseUrl, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`create database "${database}"`);
      } finally {
        await sql.end();
      }
      created.add(database);
    }
    return url;
  };
  return { dir, anvil, pg, deployment, deploymentFile, authority, databaseUrl };
}

export type RunningPonder = Ponder & {
  /** Milliseconds from spawning `ponder start` until `/ready` answered 200. */
  readyMs: number;
  output: () => string;
};

/** `ponder start` into `schema`, timed until its backfill is done; stopped by `cleanup` at the latest. */
export async function startTimedPonder(
  cleanup: Cleanup,
  stack: Stack,
  options: { databaseUrl: string; schema: string; viewsSchema: string },
): Promise<RunningPonder> {
  let log = "";
  const onOutput = (line: string) => {
    log += line;
    if (verbose) process.stderr.write(line);
  };
  const started = performance.now();
  let ponder: Ponder;
  try {
    ponder = await startPonder({
      port: await findFreePort(),
      databaseUrl: options.databaseUrl,
      rpcUrl: stack.anvil.rpcUrl,
      deploymentFile: stack.deploymentFile,
      schema: options.schema,
      viewsSchema: options.viewsSchema,
      onOutput,
    });
  } catch (error) {
    console.error(`ponder output:\n${log.slice(-4000)}`);
    throw error;
  }
  const readyMs = performance.now() - started;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await ponder.stop();
  };
  cleanup.add(`ponder ${options.schema}`, stop);
  return { ...ponder, stop, readyMs, output: () => log };
}

// ─── Chain ──────────────────────────────────────────────────────────────────

export type RpcCall = { method: string; params: unknown[] };

/** One HTTP request carrying many JSON-RPC calls; results in call order, any error throws. */
export async function rpcBatch(rpcUrl: string, calls: RpcCall[]): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }))),
  });
  const answers = (await response.json()) as {
    id: number;
    result?: unknown;
    error?: { message: string };
  }[];
  const results: unknown[] = new Array(calls.length);
  for (const answer of answers) {
    if (answer.error) {
      const call = calls[answer.id];
      throw new Error(`${call?.method} #${answer.id}: ${answer.error.message}`);
    }
    results[answer.id] = answer.result;
  }
  return results;
}

/** A made-up, deterministic address: sendable once auto-impersonation is on. */
export function benchAddress(label: string): Address {
  return getAddress(`0x${keccak256(toHex(label)).slice(26)}`);
}

export {
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  seedOf,
  THIRTY_DAYS,
} from "../devStack/marketplace.ts";

// ─── Numbers ────────────────────────────────────────────────────────────────

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** The middle value; the mean of the two middle ones for an even count. */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function mean(samples: number[]): number {
  return samples.reduce((sum, value) => sum + value, 0) / samples.length;
}

export function fixed(value: number, digits = 1): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** A Markdown table, columns after the first right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    `| ${cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join(" | ")} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? `${"-".repeat(width + 2)}` : `${"-".repeat(width + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Milliseconds between the first line of Ponder's log containing `from` and the next containing `to`,
 * read from the lines' HH:MM:SS.mmm stamps; undefined when either line is missing.
 */
export function logSpanMs(log: string, from: string, to: string): number | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colours
  const lines = log.replace(/\u001b\[[0-9;]*m/g, "").split("\n");
  const stamp = (line: string) => {
    const match = /^(\d\d):(\d\d):(\d\d)\.(\d{3})\s/.exec(line);
    if (!match) return undefined;
    const [, h, m, s, ms] = match.map(Number) as [number, number, number, number, number];
    return ((h * 60 + m) * 60 + s) * 1000 + ms;
  };
  const start = lines.findIndex((line) => line.includes(from) && stamp(line) !== undefined);
  if (start < 0) return undefined;
  const end = lines.findIndex(
    (line, i) => i > start && line.includes(to) && stamp(line) !== undefined,
  );
  if (end < 0) return undefined;
  const span = (stamp(lines[end] as string) as number) - (stamp(lines[start] as string) as number);
  return span < 0 ? span + 24 * 3_600_000 : span;
}
