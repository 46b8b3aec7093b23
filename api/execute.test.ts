// `POST /v1/execute` answering runs, `Idempotency-Key`, `GET /v1/runs/:run_id`, the per-task
// balance held by runs in flight, and the tool definition. The worker's and the settlement's
// steps are taken in hand through the run ledger (test/support/runSteps.ts; the debit is a real
// `consumeQuery`).
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { METADATA_URI, ONE_TIME, PER_QUERY } from "../devStack/marketplace.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { runs } from "../lib/db/appSchema.ts";
import { agentIdOf } from "../lib/ids/agentId.ts";
import { expectError, expectOnChainError } from "../test/support/http.ts";
import {
  agentDrafts,
  listingIdsByKey,
  oneTimePurchase,
  perTaskDeposit,
  publishListings,
} from "../test/support/listingFixtures.ts";
import { mineIndexedBlock, transaction } from "../test/support/mineBlock.ts";
import { nextRunOf, runIdsOf, waitForRun } from "../test/support/runRows.ts";
import {
  completeRun,
  debitRun,
  finishRun,
  refuseUnhanded,
  sendDebit,
  sendDelta,
  startRun,
} from "../test/support/runSteps.ts";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";
import { useStack } from "../test/support/useStack.ts";

const creator = devAccount(2);
const renter = devAccount(3); // one-time and a large per-task balance
const stranger = devAccount(4); // holds nothing
const tight = devAccount(5); // a per-task balance of two tasks
const settling = devAccount(6); // a per-task balance of two tasks, for debits caught mid-settlement
const last = devAccount(7); // a per-task balance of one task

const PRICE = parseEther("0.01");
/** Above 2^53 and odd: a double cannot hold it, so a JSON number made from one would be off. */
const TASK_PRICE = 10_000_000_000_000_001n;

const stack = useStack({ chain: true, postgres: true, ponder: true });
let app: TestApp;
let bearer: string;

const draft = agentDrafts(creator, { seedPrefix: "execute", category: "coding", described: "run" });

const drafts = {
  reviewer: draft("reviewer", ONE_TIME, PRICE, {
    input_schema: { type: "object", properties: { diff: { type: "string" } } },
    timeout_seconds: 120,
  }),
  counter: draft("counter", PER_QUERY, TASK_PRICE),
  discounted: draft("discounted", PER_QUERY, TASK_PRICE),
};
const listings = listingIdsByKey(drafts);

const deposit = (buyer: HDAccount, listing: keyof typeof listings, tasks: bigint) =>
  perTaskDeposit(buyer, listings[listing], TASK_PRICE, tasks);

beforeAll(async () => {
  app = createTestApp(stack());
  bearer = await app.tokenFor(renter);
  await publishListings(stack(), Object.values(drafts));
  await mineIndexedBlock(stack(), [
    oneTimePurchase(renter, listings.reviewer, PRICE),
    deposit(renter, "counter", 10n),
    deposit(tight, "counter", 2n),
    deposit(tight, "discounted", 2n),
    deposit(settling, "counter", 2n),
    deposit(last, "counter", 1n),
  ]);
});

const task = "Review this change";
const deps = () => app.deps;

/** Sends an execution and returns its answer-to-be and its run, once admitted with a slot. */
async function admitted(
  account: HDAccount,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const known = await runIdsOf(deps(), account.address);
  const reply = app.http(await app.tokenFor(account)).post("/v1/execute", body, { headers });
  const { id } = await nextRunOf(deps(), account.address, known);
  const run = await waitForRun(deps(), id, (row) => row.status !== "waiting");
  return { reply, run };
}

/** Resolves to "pending" when `promise` has not settled after `ms`. */
async function stillPending(promise: Promise<unknown>, ms = 300) {
  return Promise.race([
    promise.then(() => "settled"),
    new Promise((resolve) => setTimeout(() => resolve("pending"), ms)),
  ]);
}

describe("POST /v1/execute", () => {
  it("admits a run, grants it a slot, and answers its result once the worker finished it", async () => {
    const input = { diff: "+const x = 1;" };
    const { reply, run } = await admitted(renter, {
      agent_id: listings.reviewer.id,
      task,
      input,
    });
    expect(run).toMatchObject({
      wallet: renter.address.toLowerCase(),
      onChainListingId: listings.reviewer.onChainId,
      rentalModel: "one_time",
      priority: "standard",
      status: "queued",
      charge: "none",
      reservedWei: "0",
      request: { task, input, timeoutSeconds: 120 },
    });
    expect(run.id).toMatch(/^run_[0-9a-f]{24}$/);
    expect(await stillPending(reply)).toBe("pending");

    const output = { findings: [{ line: 1, note: "unused" }] };
    await completeRun(deps(), stack(), run.id, output, 4321);
    expect(await reply).toMatchObject({
      status: 200,
      body: {
        run_id: run.id,
        agent_id: listings.reviewer.id,
        status: "completed",
        output,
        cost_wei: 0,
        duration_ms: 4321,
      },
    });
    expect(Object.keys((await reply).body)).toEqual([
      "run_id",
      "agent_id",
      "status",
      "output",
      "cost_wei",
      "duration_ms",
    ]);
  });

  it("takes the registration's agent id for the listing, and answers a failed run with 200", async () => {
    const { reply, run } = await admitted(renter, {
      agent_id: agentIdOf("reviewer", listings.reviewer.onChainId),
      task,
      input_uri: METADATA_URI,
      priority: "priority",
      timeout_seconds: 30,
    });
    expect(run).toMatchObject({
      onChainListingId: listings.reviewer.onChainId,
      priority: "priority",
      request: { task, inputUri: METADATA_URI, timeoutSeconds: 30 },
    });
    await startRun(deps(), run.id);
    sendDelta(deps(), run.id, "Found one iss");
    await finishRun(deps(), run.id, { status: "failed", failure: "the agent stopped" });
    expect(await reply).toMatchObject({
      status: 200,
      body: {
        run_id: run.id,
        agent_id: listings.reviewer.id,
        status: "failed",
        output: "Found one iss",
        cost_wei: 0,
      },
    });
  });

  it("per task: holds the next debit, answers once it is debited on-chain, cost_wei exact", async () => {
    const balance = async () =>
      (
        await stack()
          .marketplace.as(renter)
          .read.perQueryBalances([listings.counter.onChainId, renter.address])
      )[0];
    const before = await balance();
    const known = await runIdsOf(deps(), renter.address);
    const reply = Promise.resolve(
      app.app.request("/v1/execute", {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify({ agent_id: listings.counter.id, task, input: "count the words" }),
      }),
    );
    const { id } = await nextRunOf(deps(), renter.address, known);
    const run = await waitForRun(deps(), id, (row) => row.status === "queued");
    expect(run).toMatchObject({ charge: "reserved", reservedWei: TASK_PRICE.toString() });

    await startRun(deps(), id);
    await finishRun(deps(), id, { status: "completed", output: "3 words" });
    // Completed, not yet debited: no answer yet.
    expect(await stillPending(reply)).toBe("pending");
    await debitRun(deps(), stack(), id);

    const response = await reply;
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(`"cost_wei":${TASK_PRICE}`);
    expect(await balance()).toBe(before - TASK_PRICE);
  });

  it("answers 503 with Retry-After for a run no slot freed for; nothing is charged", async () => {
    const { reply, run } = await admitted(renter, { agent_id: listings.counter.id, task });
    await refuseUnhanded(deps(), run.id);
    const refused = await reply;
    expectError(refused, 503, "service_unavailable");
    expect(refused.headers.get("retry-after")).toBe("5");
    await waitForRun(deps(), run.id, (row) => row.charge === "released");
  });

  it("leaves the run going when the client leaves", async () => {
    const known = await runIdsOf(deps(), renter.address);
    const client = new AbortController();
    const reply = Promise.resolve(
      app.app.request("/v1/execute", {
        method: "POST",
        signal: client.signal,
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify({ agent_id: listings.counter.id, task }),
      }),
    );
    const { id } = await nextRunOf(deps(), renter.address, known);
    await waitForRun(deps(), id, (row) => row.status === "queued");
    client.abort();
    await reply.catch(() => undefined);

    await completeRun(deps(), stack(), id, "done anyway");
    const kept = await app.http(bearer).get(`/v1/runs/${id}`);
    expect(kept.body).toMatchObject({ status: "completed", output: "done anyway" });
    expect(BigInt(kept.body.cost_wei)).toBeGreaterThan(0n);
  });
});

describe("a process that stops", () => {
  it("answers a waiting execution at once, 503 naming its run, which goes on; admits none after", async () => {
    // A process of its own, over the same database: this one's stop touches no other test.
    const stopping = createTestApp(stack());
    const ownBearer = await stopping.tokenFor(renter);
    const known = await runIdsOf(deps(), renter.address);
    const reply = stopping
      .http(ownBearer)
      .post("/v1/execute", { agent_id: listings.reviewer.id, task });
    const { id } = await nextRunOf(deps(), renter.address, known);
    await waitForRun(deps(), id, (row) => row.status === "queued");

    stopping.beginStopping();
    const answered = await reply;
    expectError(answered, 503, "service_unavailable");
    expect(answered.body.error.message).toContain(`GET /v1/runs/${id}`);
    expect(answered.headers.get("retry-after")).toBe("5");
    expect((await app.http(bearer).get(`/v1/runs/${id}`)).body.status).toBe("queued");

    const late = await stopping
      .http(ownBearer)
      .post("/v1/execute", { agent_id: listings.reviewer.id, task });
    expectError(late, 503, "service_unavailable");
    expect(late.headers.get("retry-after")).toBe("5");
    expect(await runIdsOf(deps(), renter.address)).toHaveLength(known.length + 1);
    await completeRun(deps(), stack(), id, "done anyway");
  });
});

describe("Idempotency-Key", () => {
  const body = () => ({ agent_id: listings.reviewer.id, task, input: { diff: "+y" } });

  it("gives the same run for the same key and body, waiting for it while it goes", async () => {
    const headers = { "idempotency-key": "review-42" };
    const { reply: first, run } = await admitted(renter, body(), headers);
    // The same body with its keys in another order is the same request.
    const { input, task: sameTask, agent_id } = body();
    const second = app.http(bearer).post(
      "/v1/execute",
      { input, task: sameTask, agent_id },
      {
        headers,
      },
    );
    expect(await stillPending(second)).toBe("pending");
    expectError(
      await app.http(bearer).post("/v1/execute", { ...body(), task: "Other" }, { headers }),
      400,
      "invalid_request",
    );

    await completeRun(deps(), stack(), run.id, "LGTM");
    const answers = [await first, await second];
    expect(answers.map((answer) => answer.body.run_id)).toEqual([run.id, run.id]);
    expect(answers[1]?.body).toEqual(answers[0]?.body);
    // Finished: answered at once, from the stored result.
    expect((await app.http(bearer).post("/v1/execute", body(), { headers })).body).toEqual(
      answers[0]?.body,
    );
    expect((await runIdsOf(deps(), renter.address)).filter((id) => id === run.id)).toHaveLength(1);
  });

  it("is the wallet's own: another wallet's same key names none of its runs", async () => {
    expectOnChainError(
      await app
        .http(await app.tokenFor(stranger))
        .post("/v1/execute", body(), { headers: { "idempotency-key": "review-42" } }),
      403,
      "credential_not_found",
      "CredentialNotFound",
    );
  });

  it("is free again after a run no slot freed for: the retry is a new run", async () => {
    const headers = { "idempotency-key": "busy-retry" };
    const { reply, run } = await admitted(renter, body(), headers);
    await refuseUnhanded(deps(), run.id);
    expectError(await reply, 503, "service_unavailable");

    const { reply: retry, run: again } = await admitted(renter, body(), headers);
    expect(again.id).not.toBe(run.id);
    await completeRun(deps(), stack(), again.id, "LGTM");
    expect((await retry).body).toMatchObject({ run_id: again.id, status: "completed" });
  });
});

describe("GET /v1/runs/:run_id", () => {
  it("shows the caller's run as it goes, then its final answer", async () => {
    const { reply, run } = await admitted(renter, { agent_id: listings.counter.id, task });
    const path = `/v1/runs/${run.id}`;
    const progress = (status: string, costWei = 0) => ({
      run_id: run.id,
      agent_id: listings.counter.id,
      status,
      output: null,
      cost_wei: costWei,
      duration_ms: null,
    });
    expect((await app.http(bearer).get(path)).body).toEqual(progress("queued"));
    await startRun(deps(), run.id);
    expect((await app.http(bearer).get(path)).body).toEqual(progress("running"));
    await finishRun(deps(), run.id, { status: "completed", output: "42" });
    // Completed, its debit still to come: the answer is not final yet, but its cost is known.
    expect((await app.http(bearer).get(path)).body).toEqual(
      progress("running", Number(TASK_PRICE)),
    );
    await debitRun(deps(), stack(), run.id);
    const answer = await reply;
    expect((await app.http(bearer).get(path)).body).toEqual(answer.body);
  });

  it("says why a failed run failed", async () => {
    const { reply, run } = await admitted(renter, { agent_id: listings.counter.id, task });
    await startRun(deps(), run.id);
    const failure = "the agent answered HTTP 500";
    await finishRun(deps(), run.id, { status: "failed", failure });
    const answer = await reply;
    expect(answer.body).not.toHaveProperty("failure");
    expect((await app.http(bearer).get(`/v1/runs/${run.id}`)).body).toEqual({
      ...answer.body,
      failure,
    });
  });

  it("is 404 run_not_found for another wallet's run and for an id that cannot exist", async () => {
    const [runId] = await runIdsOf(deps(), renter.address);
    const others = app.http(await app.tokenFor(stranger));
    expectError(await others.get(`/v1/runs/${runId}`), 404, "run_not_found");
    expectError(await others.get("/v1/runs/run_nope"), 404, "run_not_found");
    expectError(await others.get(`/v1/runs/run_${"0".repeat(24)}`), 404, "run_not_found");
  });
});

describe("a per-task balance held by runs in flight", () => {
  it("admits as many runs as it pays for, then refuses with insufficient_balance", async () => {
    const first = await admitted(tight, { agent_id: listings.counter.id, task });
    const second = await admitted(tight, { agent_id: listings.counter.id, task });
    // The chain still shows two tasks' balance, but both are held.
    const third = await app
      .http(await app.tokenFor(tight))
      .post("/v1/execute", { agent_id: listings.counter.id, task });
    expectOnChainError(third, 403, "insufficient_balance", "InsufficientBalance");

    // A run that fails before any output releases what it held.
    await startRun(deps(), first.run.id);
    await finishRun(deps(), first.run.id, { status: "failed", failure: "crashed" });
    await first.reply;
    const fourth = await admitted(tight, { agent_id: listings.counter.id, task });
    await completeRun(deps(), stack(), second.run.id, "ok");
    await completeRun(deps(), stack(), fourth.run.id, "ok");
    for (const { reply, run } of [second, fourth]) {
      expect((await reply).body).toMatchObject({ run_id: run.id, status: "completed" });
    }
  });

  it("waits for a debit in flight before refusing: a price cut makes room", async () => {
    const one = await admitted(tight, { agent_id: listings.discounted.id, task });
    const two = await admitted(tight, { agent_id: listings.discounted.id, task });
    // The creator halves the price: the two runs hold the old price, their debits take the new one.
    await mineIndexedBlock(stack(), [
      transaction(creator, (market) =>
        market.write.updateListing([listings.discounted.onChainId, TASK_PRICE / 2n, METADATA_URI]),
      ),
    ]);
    await startRun(deps(), one.run.id);
    await finishRun(deps(), one.run.id, { status: "completed", output: "ok" });

    const known = await runIdsOf(deps(), tight.address);
    const three = app
      .http(await app.tokenFor(tight))
      .post("/v1/execute", { agent_id: listings.discounted.id, task });
    // Held: two full prices against two tasks' balance; but one of them is being debited.
    expect(await stillPending(three, 500)).toBe("pending");
    expect(await runIdsOf(deps(), tight.address)).toEqual(known);

    expect(await debitRun(deps(), stack(), one.run.id)).toBe(TASK_PRICE / 2n);
    const { id } = await nextRunOf(deps(), tight.address, known);
    const admittedRun = await waitForRun(deps(), id, (row) => row.status === "queued");
    expect(admittedRun.reservedWei).toBe((TASK_PRICE / 2n).toString());

    await completeRun(deps(), stack(), two.run.id, "ok");
    await completeRun(deps(), stack(), id, "ok");
    expect((await one.reply).status).toBe(200);
    expect((await two.reply).status).toBe(200);
    expect((await three).body).toMatchObject({ run_id: id, status: "completed" });
  });
});

describe("a per-task balance being debited", () => {
  it("admits at once a run the balance read pays for when a debit already in it is not yet marked", async () => {
    const one = await admitted(settling, { agent_id: listings.counter.id, task });
    await startRun(deps(), one.run.id);
    await finishRun(deps(), one.run.id, { status: "completed", output: "ok" });
    // Mined: the chain shows one task left; the run still reads debit_pending, its hash beside it.
    const { receipt } = await sendDebit(deps(), stack(), one.run.id);

    const two = await admitted(settling, { agent_id: listings.counter.id, task });
    expect(two.run).toMatchObject({ status: "queued", charge: "reserved" });

    await deps()
      .db.update(runs)
      .set({ charge: "debited", costWei: TASK_PRICE.toString(), debitBlock: receipt.blockNumber })
      .where(eq(runs.id, one.run.id));
    await completeRun(deps(), stack(), two.run.id, "ok");
    for (const { reply } of [one, two]) expect((await reply).status).toBe(200);
  });

  it("refuses at once when the debit being sent takes what is left: nothing to wait for", async () => {
    const one = await admitted(last, { agent_id: listings.counter.id, task });
    await startRun(deps(), one.run.id);
    await finishRun(deps(), one.run.id, { status: "completed", output: "ok" });
    // Signed and recorded, not yet broadcast: the balance read still shows the task it will take.
    await deps()
      .db.update(runs)
      .set({ debitTx: `0x${"ab".repeat(32)}` })
      .where(eq(runs.id, one.run.id));

    const two = await app
      .http(await app.tokenFor(last))
      .post("/v1/execute", { agent_id: listings.counter.id, task });
    expectOnChainError(two, 403, "insufficient_balance", "InsufficientBalance");

    await deps().db.update(runs).set({ debitTx: null }).where(eq(runs.id, one.run.id));
    await debitRun(deps(), stack(), one.run.id);
    expect((await one.reply).status).toBe(200);
  });
});

describe("GET /v1/tools/execute", () => {
  const parameters = {
    type: "object",
    properties: {
      agent_id: { type: "string", description: expect.any(String) },
      task: { type: "string", description: expect.any(String) },
      input: { type: "object", description: expect.any(String) },
    },
    required: ["agent_id", "task"],
  };

  it("gives the tool definition in either vendor's format", async () => {
    const api = app.http(bearer);
    const openai = await api.get("/v1/tools/execute?format=openai");
    expect(openai.body).toEqual({
      type: "function",
      function: { name: "execute_agent", description: expect.any(String), parameters },
    });
    expect((await api.get("/v1/tools/execute")).body).toEqual(openai.body);
    expect((await api.get("/v1/tools/execute?format=anthropic")).body).toEqual({
      name: "execute_agent",
      description: expect.any(String),
      input_schema: parameters,
    });
    expectError(await api.get("/v1/tools/execute?format=gemini"), 400, "invalid_request");
  });
});
