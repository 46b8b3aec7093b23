// Worker processes SIGKILLed on the real stack: one in the middle of calling a connected agent, and a
// settlement leader between sending a debit and reading its receipt. Every request is answered, the
// agent is never called twice for a run, and the books balance.
import { type Hex, parseEther } from "viem";
import { expect, it } from "vitest";
import type { Worker } from "../../devStack/startWorker.ts";
import { RUN_INTERRUPTED } from "../../lib/runLedger/runFailures.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { expectOnChainError } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";
import { nextRunOf, readRun, runIdsOf, waitForRun } from "../support/runRows.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";

const PRICE = parseEther("0.001");
const LEASE_MS = 3_000;
/** The worker processes alive, oldest first. */
const workers: Worker[] = [];
const { stack, agent, proxy, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "side-effects",
  price: PRICE,
  env: { RUN_LEASE_MS: String(LEASE_MS) },
  chainProxy: true,
  startProcesses: async () => {
    workers.push(await stack().addWorker());
  },
});

async function kill(worker: Worker) {
  worker.kill("SIGKILL");
  await worker.exited;
  workers.splice(workers.indexOf(worker), 1);
}

const execute = (renter: Renter, task: string) =>
  renter.api.post("/v1/execute", { agent_id: listing().agentId, task });

/** Starts a run on the synchronous endpoint; resolves with its run id once admitted, and its answer. */
async function startRun(renter: Renter, task: string) {
  const known = await runIdsOf(stack(), renter.account.address);
  const answer = execute(renter, task);
  const run = await nextRunOf(stack(), renter.account.address, known);
  return { runId: run.id, answer };
}

it("answers a run whose worker was SIGKILLed mid-call failed and uncharged, never calling the agent again", async () => {
  const renter = await addRenter(PRICE * 2n);
  const [victim] = workers as [Worker];

  const synchronous = await startRun(renter, behaving({ hang: true }));
  const known = await runIdsOf(stack(), renter.account.address);
  const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
    body: JSON.stringify({
      agent_id: listing().agentId,
      task: behaving({ deltas: ["acted "], deltaGapMs: 120_000 }),
    }),
  });
  const stream = sseReader(response);
  expect(await stream.next()).toEqual({
    event: "output",
    data: JSON.stringify({ delta: "acted " }),
  });
  const streamed = (await nextRunOf(stack(), renter.account.address, known)).id;
  await until(
    "the agent to be called for both runs",
    () => agent().callsOf(synchronous.runId) === 1 && agent().callsOf(streamed) === 1,
  );

  workers.push(await stack().addWorker());
  await kill(victim);

  const answer = await synchronous.answer;
  expect(answer.body).toEqual({
    run_id: synchronous.runId,
    agent_id: listing().agentId,
    status: "failed",
    output: "",
    cost_wei: 0,
    duration_ms: expect.any(Number),
  });
  expect(eventsOf(await stream.rest())).toEqual([
    {
      event: "done",
      data: {
        run_id: streamed,
        status: "failed",
        cost_wei: 0,
        duration_ms: expect.any(Number),
        output: "acted ",
      },
    },
  ]);
  for (const runId of [synchronous.runId, streamed]) {
    expect(await readRun(stack(), runId)).toMatchObject({
      failure: RUN_INTERRUPTED,
      charge: "released",
    });
  }

  // Both prices were released: the survivor runs two more, charged once each, then the balance is spent.
  for (const _ of [1, 2]) {
    expect((await execute(renter, behaving())).body).toMatchObject({
      status: "completed",
      cost_wei: Number(PRICE),
    });
  }
  expectOnChainError(
    await execute(renter, behaving()),
    403,
    "insufficient_balance",
    "InsufficientBalance",
  );
  expect([agent().callsOf(synchronous.runId), agent().callsOf(streamed)]).toEqual([1, 1]);
});

it("charges once, and answers with its cost, a run whose settlement leader was SIGKILLed between sending its debit and reading the receipt", async () => {
  const renter = await addRenter(PRICE);
  // Soon the only worker, so the settlement leader: it can send transactions, never read a receipt.
  proxy().fail("eth_getTransactionReceipt");
  const blind = await stack().addWorker({ RPC_URL: proxy().url });
  for (const worker of [...workers]) await kill(worker);
  workers.push(blind);

  const run = await startRun(renter, behaving());
  const sent = await waitForRun(stack(), run.runId, (row) => row.debitTx !== null, 30_000);
  const receipt = await until("the debit to be mined", () =>
    stack()
      .marketplace.publicClient.getTransactionReceipt({ hash: sent.debitTx as Hex })
      .catch(() => undefined),
  );
  expect(receipt.status).toBe("success");
  expect((await readRun(stack(), run.runId)).charge).toBe("debit_pending");

  workers.push(await stack().addWorker());
  await kill(blind);
  proxy().restore();

  expect((await run.answer).body).toMatchObject({
    run_id: run.runId,
    status: "completed",
    cost_wei: Number(PRICE),
  });
  expect(await readRun(stack(), run.runId)).toMatchObject({
    charge: "debited",
    debitTx: sent.debitTx,
  });
});

it("kept the books: only the completed runs charged, each once", async () => {
  await expectBooksBalance();
});
