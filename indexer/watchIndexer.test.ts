import { expect, it } from "vitest";
import { createLogger } from "../lib/log.ts";
import { type IndexerProgress, watchIndexer } from "./watchIndexer.ts";

const STALL_MS = 100;
const SILENCE_MS = 100;
const STALL_AFTER_SILENCE_MS = 20;
const UNANSWERED_MS = 300;
/** An ordinary window no test waits out: a restart within one comes from the window after a silence. */
const NEVER_MS = 600_000;

/** A watch over a chain and an indexer the test moves by hand; resolves after `checks` checks. */
function watched(
  chain: { head: bigint; indexed: bigint; nodeAnswers?: boolean; databaseAnswers?: boolean },
  { restartMs = 0, stallMs = STALL_MS } = {},
) {
  const lines: string[] = [];
  const progress: IndexerProgress[] = [];
  let restarts = 0;
  const waiters: { checks: number; resolve: () => void }[] = [];
  const watch = watchIndexer({
    readChainHead: async () => {
      if (chain.nodeAnswers === false) throw new Error("no answer");
      return chain.head;
    },
    readIndexedBlock: async () => chain.indexed,
    pingDatabase: async () => {
      if (chain.databaseAnswers === false) throw new Error("no answer");
    },
    restart: async () => {
      restarts++;
      await new Promise((resolve) => setTimeout(resolve, restartMs));
      chain.indexed = chain.head;
    },
    onProgress: (checked) => {
      progress.push(checked);
      for (const waiter of waiters.filter(({ checks }) => progress.length >= checks)) {
        waiter.resolve();
      }
    },
    log: createLogger("indexer-supervisor", (line) => lines.push(line)),
    checkEveryMs: 10,
    stallMs,
    silenceMs: SILENCE_MS,
    stallAfterSilenceMs: STALL_AFTER_SILENCE_MS,
    unansweredMs: UNANSWERED_MS,
  });
  const afterChecks = (more: number) =>
    new Promise<void>((resolve) => waiters.push({ checks: progress.length + more, resolve }));
  return { watch, lines, progress, restarts: () => restarts, afterChecks };
}

it("leaves an indexer at the head of an idle chain alone", async () => {
  const chain = { head: 10n, indexed: 10n };
  const { watch, restarts, afterChecks, progress } = watched(chain);
  await afterChecks(30);
  await watch.stop();
  expect(restarts()).toBe(0);
  expect(progress.at(-1)).toMatchObject({ indexedBlock: 10n, chainHead: 10n });
});

it("restarts an indexer left behind by blocks mined before it last moved", async () => {
  const chain = { head: 10n, indexed: 10n };
  const { watch, restarts, afterChecks } = watched(chain);
  await afterChecks(2);
  chain.head = 12n;
  chain.indexed = 11n;
  while (restarts() === 0) await afterChecks(1);
  await watch.stop();
  expect(restarts()).toBe(1);
});

it("leaves an indexer that follows the moving head alone", async () => {
  const chain = { head: 10n, indexed: 10n };
  const { watch, restarts, afterChecks } = watched(chain);
  for (let n = 0; n < 30; n++) {
    chain.head++;
    await afterChecks(1);
    chain.indexed = chain.head;
  }
  await watch.stop();
  expect(restarts()).toBe(0);
});

it("restarts an indexer standing still behind a head that moved on, and logs the lag", async () => {
  const chain = { head: 10n, indexed: 10n };
  const { watch, restarts, afterChecks, lines, progress } = watched(chain);
  await afterChecks(2);
  chain.head = 12n;
  const stalledAt = Date.now();
  while (restarts() === 0) await afterChecks(1);
  await watch.stop();
  expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(STALL_MS);
  expect(restarts()).toBe(1);
  const stalled = lines.map((line) => JSON.parse(line)).find((line) => line.level === "error");
  expect(stalled).toMatchObject({
    message: "indexer stalled: restarting the indexer",
    indexed_block: "10",
    chain_head: "12",
  });
  expect(progress.some(({ behindSince }) => behindSince !== undefined)).toBe(true);
});

it("restarts an indexer that stopped answering while the head moved on, after the longer window a database freeze needs", async () => {
  const chain = { head: 10n, indexed: 10n };
  const { watch, restarts, afterChecks } = watched(chain);
  await afterChecks(2);
  chain.head = 11n;
  const unansweredFrom = Date.now();
  stopAnswering(chain);
  while (restarts() === 0) await afterChecks(1);
  await watch.stop();
  expect(restarts()).toBe(1);
  expect(Date.now() - unansweredFrom).toBeGreaterThanOrEqual(UNANSWERED_MS);
});

/** Makes the indexer's reads fail, as a Ponder that no longer answers. */
function stopAnswering(chain: { indexed: bigint }) {
  Object.defineProperty(chain, "indexed", {
    get: () => {
      throw new Error("no answer");
    },
    set: () => {},
    configurable: true,
  });
}

it("restarts nothing while the database does not answer, and gives an unanswering indexer its whole window once it does", async () => {
  const chain = { head: 10n, indexed: 10n, databaseAnswers: true };
  const { watch, restarts, afterChecks } = watched(chain);
  await afterChecks(2);
  chain.head = 11n;
  stopAnswering(chain);
  chain.databaseAnswers = false;
  const frozenFrom = Date.now();
  while (Date.now() - frozenFrom < 2 * UNANSWERED_MS) await afterChecks(1);
  expect(restarts(), "restarted while the database did not answer").toBe(0);
  chain.databaseAnswers = true;
  const answeringFrom = Date.now();
  while (restarts() === 0) await afterChecks(1);
  await watch.stop();
  expect(Date.now() - answeringFrom).toBeGreaterThanOrEqual(UNANSWERED_MS);
});

it("restarts no indexer standing still while the database does not answer", async () => {
  const chain = { head: 10n, indexed: 10n, databaseAnswers: false };
  const { watch, restarts, afterChecks } = watched(chain);
  await afterChecks(2);
  chain.head = 12n;
  const stalledFrom = Date.now();
  while (Date.now() - stalledFrom < 3 * STALL_MS) await afterChecks(1);
  chain.databaseAnswers = true;
  while (restarts() === 0) await afterChecks(1);
  await watch.stop();
  expect(restarts()).toBe(1);
});

/** Keeps the node or the database silent for longer than `SILENCE_MS`, then lets it answer again. */
async function silenced(
  chain: { nodeAnswers?: boolean; databaseAnswers?: boolean },
  afterChecks: (n: number) => Promise<void>,
  dependency: "nodeAnswers" | "databaseAnswers" = "nodeAnswers",
) {
  chain[dependency] = false;
  const silentFrom = Date.now();
  while (Date.now() - silentFrom < 2 * SILENCE_MS) await afterChecks(1);
  chain[dependency] = true;
}

it.each([
  ["node", "nodeAnswers", "chain node"],
  ["database", "databaseAnswers", "database"],
] as const)(
  "after a long silence of the %s, restarts an indexer that does not take the next block at once",
  async (_, dependency, named) => {
    const chain = { head: 10n, indexed: 10n, nodeAnswers: true, databaseAnswers: true };
    const { watch, restarts, afterChecks, lines } = watched(chain, { stallMs: NEVER_MS });
    await afterChecks(2);
    await silenced(chain, afterChecks, dependency);
    await afterChecks(10);
    expect(restarts(), "no block waits yet").toBe(0);
    chain.head = 11n;
    while (restarts() === 0) await afterChecks(1);
    await watch.stop();
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged.find((line) => line.level === "warn")).toMatchObject({
      message: `${named} answers again after a silence: the indexer must take its next block soon`,
    });
    expect(logged.find((line) => line.level === "error")).toMatchObject({
      message: "indexer stalled: restarting the indexer",
      indexed_block: "10",
      chain_head: "11",
      after_silence: true,
    });
  },
);

it("after a long silence of the node, leaves an indexer that takes the next block alone, and then waits the ordinary window again", async () => {
  const chain = { head: 10n, indexed: 10n, nodeAnswers: true };
  const { watch, restarts, afterChecks } = watched(chain, { stallMs: NEVER_MS });
  await afterChecks(2);
  await silenced(chain, afterChecks);
  chain.head = 11n;
  chain.indexed = 11n;
  await afterChecks(10);
  chain.head = 12n;
  await afterChecks(20);
  await watch.stop();
  expect(restarts()).toBe(0);
});

it("after a short silence of the node, waits the ordinary window", async () => {
  const chain = { head: 10n, indexed: 10n, nodeAnswers: true };
  const { watch, restarts, afterChecks } = watched(chain, { stallMs: NEVER_MS });
  await afterChecks(2);
  chain.nodeAnswers = false;
  await afterChecks(1);
  chain.nodeAnswers = true;
  chain.head = 11n;
  await afterChecks(20);
  await watch.stop();
  expect(restarts()).toBe(0);
});

it("goes on recording the lag while a restart is under way, and starts no second one", async () => {
  const chain = { head: 10n, indexed: 10n };
  const { watch, restarts, afterChecks, progress } = watched(chain, { restartMs: 20 * STALL_MS });
  await afterChecks(2);
  chain.head = 12n;
  while (restarts() === 0) await afterChecks(1);
  const from = progress.length;
  chain.head = 13n;
  await afterChecks(5 + STALL_MS / 10);
  const duringRestart = progress.slice(from);
  await watch.stop();
  expect(restarts()).toBe(1);
  expect(duringRestart.at(-1)).toMatchObject({ indexedBlock: 10n, chainHead: 13n });
  expect(duringRestart.at(-1)?.behindSince).toBeDefined();
});
