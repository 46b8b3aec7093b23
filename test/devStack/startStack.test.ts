// The dev stack itself: every part starts on loopback and answers, and stop() leaves no process and
// no temp dir behind.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntilReady } from "../../devStack/spawnService.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { type Stack, startStack } from "../../devStack/startStack.ts";
import { streamName } from "../../lib/bus/jetStreamBus.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { projections } from "../../lib/db/projections.ts";
import { createApiKey, http } from "../support/http.ts";
import { captureOutput } from "../support/processOutput.ts";

/** What an API process logs once its Postgres listener listens (and follows listed versions). */
const LISTENING = "listening for Postgres notices";
const LOOPBACK_URL = /^[a-z]+:\/\/127\.0\.0\.1:\d+$/;

/** Every process below this one, as `ps` sees it: pid and state. */
function descendants(): Map<number, string> {
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid=,stat="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, stat]) => ({ pid: Number(pid), ppid: Number(ppid), stat: String(stat) }));
  const found = new Map<number, string>();
  const parents = [process.pid];
  while (parents.length > 0) {
    const parent = parents.pop();
    for (const row of table.filter((candidate) => candidate.ppid === parent)) {
      found.set(row.pid, row.stat);
      parents.push(row.pid);
    }
  }
  return found;
}

/** Those of `pids` still running: not gone, and not a zombie waiting to be reaped. */
function running(pids: number[]): number[] {
  const states = execFileSync("ps", ["-e", "-o", "pid=,stat="], { encoding: "utf8" });
  const alive = new Set(
    states
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .filter(([, stat]) => !stat?.startsWith("Z"))
      .map(([pid]) => Number(pid)),
  );
  return pids.filter((pid) => alive.has(pid));
}

const output = captureOutput();
let stack: Stack;
let before: Map<number, string>;

beforeAll(async () => {
  before = descendants();
  stack = await startStack({
    chain: true,
    postgres: true,
    ponder: true,
    nats: true,
    api: 1,
    workers: 1,
    onOutput: output.onOutput,
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe("the dev stack", () => {
  it("starts anvil answering JSON-RPC, with the marketplace deployed", async () => {
    expect(stack.anvil.rpcUrl).toMatch(LOOPBACK_URL);
    expect(await rpcRequest(stack.anvil.rpcUrl, "eth_chainId")).toBe("0x7a69");
    const code = await stack.marketplace.publicClient.getCode({
      address: stack.deployment.address,
    });
    expect(code?.length).toBeGreaterThan(2);
  });

  it("starts Postgres answering queries, with the app schema migrated", async () => {
    expect(stack.postgres.databaseUrl).toMatch(
      /^postgresql:\/\/\S+@127\.0\.0\.1:\d+\/marketplace$/,
    );
    const [server] = await stack.db.execute<{ database: string; version: string }>(
      sql`select current_database() as database, version() as version`,
    );
    expect(server?.database).toBe("marketplace");
    expect(server?.version).toMatch(/^PostgreSQL \d+/);
    const schemas = await stack.db.execute<{ name: string }>(
      sql`select schema_name as name from information_schema.schemata where schema_name = 'app'`,
    );
    expect(schemas).toEqual([{ name: "app" }]);
  });

  it("starts Ponder indexing the deployment into the views", async () => {
    expect(stack.ponder.url).toMatch(LOOPBACK_URL);
    await stack.ponder.waitForBlock(stack.deployment.startBlock);
    const [protocol] = await stack.db.select().from(projections.protocol);
    expect(protocol?.id).toBe(stack.deployment.address.toLowerCase());
  });

  it("starts NATS with JetStream that stores, deduplicates and delivers a message", async () => {
    expect(stack.nats.natsUrl).toMatch(LOOPBACK_URL);
    const connection = await connect({ servers: stack.nats.natsUrl });
    try {
      const manager = await jetstreamManager(connection);
      await manager.streams.add({ name: "SMOKE", subjects: ["smoke.>"] });
      const client = jetstream(connection);
      const ack = await client.publish("smoke.ping", "hello", { msgID: "one" });
      const duplicate = await client.publish("smoke.ping", "hello", { msgID: "one" });
      expect(duplicate.duplicate).toBe(true);
      const message = await manager.streams.getMessage("SMOKE", { seq: ack.seq });
      expect(message?.string()).toBe("hello");
    } finally {
      await connection.close();
    }
  });

  it("starts an API answering HTTP and a worker pulling registrations from NATS", async () => {
    expect(stack.api.url).toMatch(LOOPBACK_URL);
    const { key } = await createApiKey(stack.api.url, devAccount(2));
    const listings = await http(stack.api.url, { bearer: key }).get("/v1/listings");
    expect(listings).toMatchObject({ status: 200, body: { listings: [], total: 0 } });

    const connection = await connect({ servers: stack.nats.natsUrl });
    try {
      const manager = await jetstreamManager(connection);
      await waitUntilReady("the worker's pull request", async () => {
        const consumer = await manager.consumers.info(
          streamName("jobs.registration"),
          "registration",
        );
        if (consumer.num_waiting < 1) throw new Error("no pull request waiting");
      });
    } finally {
      await connection.close();
    }
  });

  it("stops every process it started and removes its temp dir", async () => {
    const started = [...descendants().keys()].filter((pid) => !before.has(pid));
    // anvil, Postgres, Ponder, NATS, the API and the worker at least.
    expect(started.length).toBeGreaterThanOrEqual(6);
    expect(existsSync(stack.dir)).toBe(true);

    await stack.stop();

    // A process sent SIGKILL may take a moment to be gone.
    await waitUntilReady(
      "every stack process gone",
      async () => {
        const left = running(started);
        if (left.length > 0) throw new Error(`still running: ${left.join(", ")}`);
      },
      { timeoutMs: 2_000 },
    );
    expect(existsSync(stack.dir)).toBe(false);
  });

  it("started the API once Ponder had made its views: it followed listed versions without a warning", () => {
    // Read once the stack has stopped: everything the API printed is in.
    expect(output.entries().some((entry) => entry.message === LISTENING)).toBe(true);
    const warnings = output
      .entries()
      .filter((entry) => entry.component === "api" && entry.level !== "info");
    expect(warnings.map((entry) => entry.message)).toEqual([]);
  });
});
