// The chain unreachable on the real stack: an API process and a worker process reach anvil through a
// proxy that fails every request on cue. While it does, executions are refused with a clean 503 and
// no run is admitted, within seconds even when the node takes calls and never answers; a run already
// going completes, waits for its debit, and is settled and answered with its cost once the chain
// answers again.
import { parseEther } from "viem";
import { expect, it } from "vitest";
import { CHAIN_READ_DEADLINE_MS } from "../../api/limits.ts";
import type { Api } from "../../devStack/startApi.ts";
import { behaving } from "../support/behavingAgent.ts";
import { EVERY_METHOD } from "../support/countingRpcProxy.ts";
import { expectError } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";
import { nextRunOf, readRun, runIdsOf } from "../support/runRows.ts";
import { settlementFailedTwice } from "../support/settlementRetries.ts";

const PRICE = parseEther("0.001");
/** Everything the stack's processes print. */
const output: string[] = [];
/** An API process whose chain is behind the proxy (the stack's own reaches anvil directly). */
let api: Api;
const { stack, agent, proxy, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "off-chain-hours",
  price: PRICE,
  chainProxy: true,
  stackOptions: { onOutput: (chunk) => output.push(chunk) },
  startProcesses: async () => {
    [api] = await Promise.all([
      stack().addApi({ RPC_URL: proxy().url }),
      stack().addWorker({ RPC_URL: proxy().url }),
    ]);
  },
});

it("refuses executions with 503 while the chain is unreachable, admitting none; a run already going is settled once it answers", async () => {
  const renter = await addRenter(PRICE * 2n, () => api.url);
  const wallet = renter.account.address;
  const body = { agent_id: listing().agentId, task: behaving({ delayMs: 1_500 }) };
  const going = renter.api.post("/v1/execute", body);
  const run = await nextRunOf(stack(), wallet, []);
  await until("the agent to be called", () => agent().callsOf(run.id) === 1);

  const heardBefore = output.length;
  proxy().fail(EVERY_METHOD);
  expectError(await renter.api.post("/v1/execute", body), 503, "service_unavailable");
  const stream = await renter.api.post("/v1/execute/stream", body);
  expectError(stream, 503, "service_unavailable");
  expect(await runIdsOf(stack(), wallet)).toEqual([run.id]);

  // The run completes; its debit waits for the chain, and so does its answer.
  await until(
    "the run to complete",
    async () => (await readRun(stack(), run.id)).status === "completed",
  );
  await until("settlement to fail on the chain twice", () =>
    settlementFailedTwice(output.slice(heardBefore).join("")),
  );
  expect(await readRun(stack(), run.id)).toMatchObject({ charge: "debit_pending", debitTx: null });
  expect((await renter.api.get(`/v1/runs/${run.id}`)).body.status).toBe("running");

  proxy().restore();
  expect((await going).body).toMatchObject({
    run_id: run.id,
    status: "completed",
    cost_wei: Number(PRICE),
  });
  expect((await renter.api.post("/v1/execute", body)).body).toMatchObject({
    status: "completed",
    cost_wei: Number(PRICE),
  });
});

it("answers 503 within seconds when the chain takes calls and never answers, admitting no run", async () => {
  const renter = await addRenter(PRICE, () => api.url);
  const body = { agent_id: listing().agentId, task: behaving() };

  proxy().stall();
  const asked = Date.now();
  expectError(await renter.api.post("/v1/execute", body), 503, "service_unavailable");
  // One read's deadline, retry included, not viem's default of four 10 s attempts.
  expect(Date.now() - asked).toBeLessThan(CHAIN_READ_DEADLINE_MS + 2_000);
  expect(await runIdsOf(stack(), renter.account.address)).toEqual([]);

  proxy().restore();
  expect((await renter.api.post("/v1/execute", body)).body).toMatchObject({
    status: "completed",
    cost_wei: Number(PRICE),
  });
});

it("kept the books: every completed run charged once", async () => {
  const books = await expectBooksBalance();
  expect([...books.values()].map((run) => run.charge)).toEqual(Array(3).fill("debited"));
});
