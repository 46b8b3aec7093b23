// The charging rule, attacked as a renter would attack it: output delivered ⇒ charged, nothing
// delivered ⇒ not charged. Each way of making a per-task run fail after its output reached the
// renter (a timeout set just below the agent's pace on a stream, an output off its schema after
// deltas, a prompt repeated after the answer) is debited exactly its price on-chain; text holding
// the six characters `\u0000` completes; a run that fails before any output costs nothing and
// carries none; one Idempotency-Key sent to both execute endpoints is one run, charged once. Against
// a connected agent and a declarative one, on the real stack.
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import {
  type AgentBehaviour,
  type BehavingAgent,
  behaving,
  startBehavingAgent,
} from "../support/behavingAgent.ts";
import {
  listPerTaskAgent,
  type PerTaskListing,
  perTaskRenter,
  type Renter,
} from "../support/connectedListing.ts";
import { type DeclarativeListing, listDeclarativeAgent } from "../support/declarativeOnStack.ts";
import { expectBooksBalance } from "../support/perTaskAccounts.ts";
import { readRun } from "../support/runRows.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";
import { useStack } from "../support/useStack.ts";

const PRICE = parseEther("0.001");
/** Six characters: a backslash, `u` and four zeros; no NUL among them. */
const ESCAPE_TEXT = "ends with \\u0000";

const stack = useStack({ api: 0, ponder: true });
let agent: BehavingAgent;
let servers: ModelServers;
let connected: PerTaskListing;
let declarative: DeclarativeListing;
let connectedRenter: Renter;
let declarativeRenter: Renter;

beforeAll(async () => {
  agent = await startBehavingAgent(await ensureDevCertificates(stack().dir));
  servers = await startModelServers(stack());
  await stack().addApi(servers.env);
  connected = await listPerTaskAgent(stack(), agent, { name: "charged-agent", price: PRICE });
  declarative = await listDeclarativeAgent(stack(), servers, {
    name: "charged-brief",
    provider: "anthropic",
    price: PRICE,
  });
  connectedRenter = await perTaskRenter(stack(), connected, 20n * PRICE);
  declarativeRenter = await perTaskRenter(stack(), declarative, 20n * PRICE);
});
afterAll(async () => {
  await agent?.close();
  await servers?.stop();
});

/**
 * The price the chain debited for the run, or undefined when it debited nothing. A debit carries the
 * run's outcome: a run charged for what it streamed before failing is counted a failure.
 */
async function debitedOnChain(runId: string): Promise<bigint | undefined> {
  const row = await readRun(stack(), runId);
  const consumed = await stack().marketplace.publicClient.getContractEvents({
    address: stack().deployment.address,
    abi: serviceMarketplaceAbi,
    eventName: "QueryConsumed",
    args: { runId: BigInt(row.onChainRunId) },
    fromBlock: BigInt(stack().deployment.startBlock),
    toBlock: "latest",
    strict: true,
  });
  expect(consumed.length, "debits of one run").toBeLessThanOrEqual(1);
  if (consumed[0])
    expect(consumed[0].args.succeeded, "its outcome").toBe(row.status === "completed");
  return consumed[0]?.args.price;
}

/** A run on the stream: the deltas the renter received, and `done`. */
async function streamRun(renter: Renter, body: object, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${renter.bearer}`,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const events = eventsOf(await sseReader(response).rest());
  const received = events
    .filter((event) => event.event === "output")
    .map((event) => (event.data as { delta: string }).delta)
    .join("");
  const done = events.at(-1);
  expect(done?.event).toBe("done");
  return { received, done: done?.data as Record<string, unknown> & { run_id: string } };
}

const connectedRun = (behaviour: AgentBehaviour, extra: object = {}) => ({
  agent_id: connected.agentId,
  task: behaving(behaviour),
  ...extra,
});

describe("a connected agent", () => {
  it("a timeout set below the agent's pace on a stream: the deltas received are charged", async () => {
    const { received, done } = await streamRun(
      connectedRenter,
      connectedRun(
        { deltas: ["first part ", "second part"], deltaGapMs: 4_000 },
        { timeout_seconds: 2 },
      ),
    );
    expect(received).toBe("first part ");
    expect(done).toMatchObject({
      status: "failed",
      output: "first part ",
      cost_wei: Number(PRICE),
    });
    expect(await debitedOnChain(done.run_id)).toBe(PRICE);
  });

  it("an output off its schema after deltas: charged, the deltas kept", async () => {
    const { received, done } = await streamRun(
      connectedRenter,
      connectedRun({ deltas: ["all ", "of it"], output: { summary: 42 } }),
    );
    expect(received).toBe("all of it");
    expect(done).toMatchObject({ status: "failed", output: "all of it", cost_wei: Number(PRICE) });
    expect(await debitedOnChain(done.run_id)).toBe(PRICE);
  });

  it("an output off its schema with nothing streamed: not charged, and none of it answered", async () => {
    const response = await connectedRenter.api.post(
      "/v1/execute",
      connectedRun({ output: { summary: 42, secret: "the whole answer" } }),
    );
    expect(response.body).toMatchObject({ status: "failed", output: "", cost_wei: 0 });
    expect(await debitedOnChain(response.body.run_id)).toBeUndefined();
  });

  it("the text `\\u0000` completes, charged its price", async () => {
    const response = await connectedRenter.api.post(
      "/v1/execute",
      connectedRun({ output: { summary: ESCAPE_TEXT } }),
    );
    expect(response.body).toMatchObject({
      status: "completed",
      output: { summary: ESCAPE_TEXT },
      cost_wei: Number(PRICE),
    });
    expect(await debitedOnChain(response.body.run_id)).toBe(PRICE);
  });

  it.each<[string, AgentBehaviour]>([
    ["cannot be reached", { reset: true }],
    ["answers HTTP 500 before any byte of output", { status: 500 }],
  ])("an agent that %s: not charged", async (_, behaviour) => {
    const { received, done } = await streamRun(connectedRenter, connectedRun(behaviour));
    expect(received).toBe("");
    expect(done).toMatchObject({ status: "failed", output: "", cost_wei: 0 });
    expect(await debitedOnChain(done.run_id)).toBeUndefined();
  });

  it("one Idempotency-Key on both endpoints: one run, run once and charged once", async () => {
    const keyed = { "idempotency-key": "both-endpoints-1" };
    const body = connectedRun({ deltas: ["said ", "once"], output: { summary: "said once" } });
    const answer = await connectedRenter.api.post("/v1/execute", body, { headers: keyed });
    expect(answer.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
    const { received, done } = await streamRun(connectedRenter, body, keyed);
    // The stream attached to the finished run: its output comes from the run's row.
    expect(JSON.parse(received)).toEqual({ summary: "said once" });
    expect(done).toMatchObject({
      run_id: answer.body.run_id,
      status: "completed",
      cost_wei: Number(PRICE),
    });
    expect(agent.callsOf(answer.body.run_id)).toBe(1);
    expect(await debitedOnChain(answer.body.run_id)).toBe(PRICE);

    const otherBody = await fetch(`${stack().api.url}/v1/execute/stream`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${connectedRenter.bearer}`,
        "content-type": "application/json",
        ...keyed,
      },
      body: JSON.stringify(connectedRun({ output: { summary: "another" } })),
    });
    expect(otherBody.status).toBe(400);
    expect(((await otherBody.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_request",
    );
  });

  it("kept the books: every run that delivered output debited once, no other", async () => {
    const books = await expectBooksBalance(stack(), connected, [connectedRenter]);
    expect([...books.values()].map((run) => run.charge).sort()).toEqual([
      "debited",
      "debited",
      "debited",
      "debited",
      "released",
      "released",
      "released",
    ]);
  });
});

describe("a declarative agent", () => {
  const declarativeRun = (extra: object = {}) => ({
    agent_id: declarative.agentId,
    task: "Brief me",
    ...extra,
  });

  // The prompt-leak guard holds back the stream's last 128 characters: answers here are longer.
  const ANSWER = "Chips rose two percent on strong demand for memory. ".repeat(6);

  it("a timeout set below the model's pace on a stream: the deltas received are charged", async () => {
    servers.vendor.script(declarative.model, [
      { kind: "text", text: [ANSWER, "and then some more"], chunkDelayMs: 3_000 },
    ]);
    const { received, done } = await streamRun(
      declarativeRenter,
      declarativeRun({ timeout_seconds: 2 }),
    );
    expect(received.length).toBeGreaterThan(0);
    expect(ANSWER.startsWith(received)).toBe(true);
    expect(done).toMatchObject({ status: "failed", output: received, cost_wei: Number(PRICE) });
    expect(await debitedOnChain(done.run_id)).toBe(PRICE);
  });

  it("the prompt repeated after the answer: the answer sent is charged, the prompt never sent", async () => {
    servers.vendor.script(declarative.model, [
      { kind: "text", text: [ANSWER, "You are charged-brief. Answer briefly."] },
    ]);
    const { received, done } = await streamRun(declarativeRenter, declarativeRun());
    expect(received.length).toBeGreaterThan(0);
    expect(ANSWER.startsWith(received)).toBe(true);
    expect(done).toMatchObject({ status: "failed", output: received, cost_wei: Number(PRICE) });
    expect(JSON.stringify(done)).not.toContain("Answer briefly");
    expect(await debitedOnChain(done.run_id)).toBe(PRICE);
  });

  it("the text `\\u0000` completes, charged its price", async () => {
    servers.vendor.script(declarative.model, [{ kind: "text", text: [ESCAPE_TEXT] }]);
    const response = await declarativeRenter.api.post("/v1/execute", declarativeRun());
    expect(response.body).toMatchObject({
      status: "completed",
      output: ESCAPE_TEXT,
      cost_wei: Number(PRICE),
    });
    expect(await debitedOnChain(response.body.run_id)).toBe(PRICE);
  });

  it("a model that fails before any output: not charged", async () => {
    servers.vendor.script(
      declarative.model,
      Array.from({ length: 50 }, () => ({ kind: "error" as const, status: 500 })),
    );
    const { received, done } = await streamRun(
      declarativeRenter,
      declarativeRun({ timeout_seconds: 2 }),
    );
    expect(received).toBe("");
    expect(done).toMatchObject({ status: "failed", output: "", cost_wei: 0 });
    expect(await debitedOnChain(done.run_id)).toBeUndefined();
  });

  it("kept the books: every run that delivered output debited once, no other", async () => {
    const books = await expectBooksBalance(stack(), declarative, [declarativeRenter]);
    expect([...books.values()].filter((run) => run.charge === "debited")).toHaveLength(3);
  });
});
