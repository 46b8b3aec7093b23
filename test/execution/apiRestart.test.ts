// The API process is where a renter waits for a run, not where the run lives: an API SIGKILLed while
// the agent answers, or while the debit is held back, and a client that leaves its stream, leave the
// run to complete and be charged exactly once, and a new API process answers it with its cost.
import { parseEther } from "viem";
import { expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { EVERY_METHOD } from "../support/countingRpcProxy.ts";
import { expectError, type JsonResponse } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";
import { nextRunOf, runIdsOf, waitForRun } from "../support/runRows.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";

const PRICE = parseEther("0.001");
let api: Api;
const { stack, agent, proxy, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "outlives-its-api",
  price: PRICE,
  chainProxy: true,
  startProcesses: async () => {
    // The worker's way to the chain: failing it holds settlement back.
    await stack().addWorker({ RPC_URL: proxy().url });
    api = stack().api;
  },
});

const newRenter = () => addRenter(PRICE * 2n, () => api.url);

/** SIGKILLs the API process and starts another; renters follow it. */
async function restartApi() {
  api.kill("SIGKILL");
  await api.exited;
  api = await stack().addApi();
}

/** Starts a request that the API crash will cut; resolves with the run it admitted. */
async function admitted(renter: Renter, body: object, headers: Record<string, string> = {}) {
  const known = await runIdsOf(stack(), renter.account.address);
  const cut = renter.api.post("/v1/execute", body, { headers }).then(
    (reply) => reply,
    (error: unknown) => error,
  );
  return { run: await nextRunOf(stack(), renter.account.address, known), cut };
}

it("completes and charges once a run whose API was SIGKILLed while the agent answered; a retry under its Idempotency-Key on the new API gets it", async () => {
  const renter = await newRenter();
  const body = { agent_id: listing().agentId, task: behaving({ delayMs: 2_000 }) };
  const headers = { "idempotency-key": "review-7" };
  const { run, cut } = await admitted(renter, body, headers);
  await until("the agent to be called", () => agent().callsOf(run.id) === 1);

  await restartApi();
  expect(await cut).toBeInstanceOf(Error);

  const retry = await renter.api.post("/v1/execute", body, { headers });
  expect(retry.body).toEqual({
    run_id: run.id,
    agent_id: listing().agentId,
    status: "completed",
    output: { summary: "done" },
    cost_wei: Number(PRICE),
    duration_ms: expect.any(Number),
  });
  expect((await renter.api.get(`/v1/runs/${run.id}`)).body).toEqual(retry.body);
  expect(agent().callsOf(run.id)).toBe(1);
});

it("settles exactly once a run completed while its API was SIGKILLed and its debit held back; the new API answers it with its cost", async () => {
  const renter = await newRenter();
  proxy().fail(EVERY_METHOD);
  const { run, cut } = await admitted(renter, { agent_id: listing().agentId, task: behaving() });
  await waitForRun(stack(), run.id, (row) => row.charge === "debit_pending", 30_000);

  await restartApi();
  expect(await cut).toBeInstanceOf(Error);
  // Still to be debited: the run is not answered yet, though what it will cost is known.
  expect((await renter.api.get(`/v1/runs/${run.id}`)).body).toMatchObject({
    status: "running",
    cost_wei: Number(PRICE),
  });

  proxy().restore();
  const answered = await until("the run to be answered", async () => {
    const reply = await renter.api.get(`/v1/runs/${run.id}`);
    return reply.body.status !== "running" && reply.body;
  });
  expect(answered).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
});

it("answers at once, 503 naming the run, renters waiting on an API stopped in order; the runs settle once and the new API has them", async () => {
  const renter = await newRenter();
  proxy().fail(EVERY_METHOD);
  const { run, cut } = await admitted(renter, { agent_id: listing().agentId, task: behaving() });
  const known = await runIdsOf(stack(), renter.account.address);
  const response = await fetch(`${api.url}/v1/execute/stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ agent_id: listing().agentId, task: behaving({ delayMs: 1_000 }) }),
  });
  const streamed = await nextRunOf(stack(), renter.account.address, known);
  await waitForRun(stack(), run.id, (row) => row.charge === "debit_pending", 30_000);

  const stopping = Date.now();
  await api.stop();
  // Its stop waited for no run.
  expect(Date.now() - stopping).toBeLessThan(3_000);
  api = await stack().addApi();
  const reply = (await cut) as JsonResponse;
  expectError(reply, 503, "service_unavailable");
  expect(reply.body.error.message).toContain(`GET /v1/runs/${run.id}`);
  expect(reply.headers.get("retry-after")).toBe("5");
  const events = eventsOf(await sseReader(response).rest());
  expect(events).toEqual([
    {
      event: "error",
      data: {
        error: {
          code: "service_unavailable",
          message: expect.stringContaining(`GET /v1/runs/${streamed.id}`),
          status: 503,
        },
      },
    },
  ]);

  proxy().restore();
  for (const runId of [run.id, streamed.id]) {
    const answered = await until("the run to be answered", async () => {
      const reply = await renter.api.get(`/v1/runs/${runId}`);
      return reply.body.status !== "running" && reply.body;
    });
    expect(answered).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
  }
});

it("completes and charges once the run of a client that left its stream mid-run; GET /v1/runs/:run_id has it", async () => {
  const renter = await newRenter();
  const leaving = new AbortController();
  const known = await runIdsOf(stack(), renter.account.address);
  const response = await fetch(`${api.url}/v1/execute/stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
    body: JSON.stringify({
      agent_id: listing().agentId,
      task: behaving({
        deltas: ["first ", "second"],
        deltaGapMs: 1_000,
        output: { summary: "done" },
      }),
    }),
    signal: leaving.signal,
  });
  expect(await sseReader(response).next()).toEqual({
    event: "output",
    data: JSON.stringify({ delta: "first " }),
  });
  leaving.abort();
  const run = await nextRunOf(stack(), renter.account.address, known);

  const answered = await until("the run to be answered", async () => {
    const reply = await renter.api.get(`/v1/runs/${run.id}`);
    return reply.body.status !== "running" && reply.body;
  });
  expect(answered).toMatchObject({
    status: "completed",
    output: { summary: "done" },
    cost_wei: Number(PRICE),
  });
  expect(agent().callsOf(run.id)).toBe(1);
});

it("kept the books: every run charged once", async () => {
  const books = await expectBooksBalance();
  expect([...books.values()].map((run) => run.charge)).toEqual(Array(5).fill("debited"));
});
