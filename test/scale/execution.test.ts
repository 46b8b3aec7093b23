// Per-task executions on the scale-out stack: renters on three API processes, runs on two workers
// over a three-node NATS cluster. Under load the node leading the runs stream is SIGKILLed, then one
// of the workers: every accepted run is answered completed, or in a documented state that charges
// nothing (refused before it ran while no node led the stream; failed as interrupted when its worker
// died mid-call); the chain debits exactly the completed runs, each once.
import { and, count, eq, inArray } from "drizzle-orm";
import { parseEther } from "viem";
import { expect, it } from "vitest";
import type { Worker } from "../../devStack/startWorker.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { RUN_SUBJECT } from "../../lib/runLedger/publishRun.ts";
import { RUN_INTERRUPTED } from "../../lib/runLedger/runFailures.ts";
import { RUN_NOT_HANDED_OVER } from "../../lib/runLedger/runNotStarted.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { SCALE_STACK, streamLeader, streamReplicated } from "../support/natsCluster.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { recoveryFigures } from "../support/recoveryFigures.ts";
import { until } from "../support/registration.ts";

const PRICE = parseEther("0.001");
const RENTERS = 3;
/** Requests sent at once, then more right after the fault. */
const AT_ONCE = 45;
const AFTER_FAULT = 15;

const workers: Worker[] = [];
const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "scale-out",
  price: PRICE,
  // A dead worker's runs are taken over within seconds; the per-credential limit is not under test.
  env: { RUN_LEASE_MS: "3000", EXECUTION_RATE_LIMIT_PER_MINUTE: "10000" },
  stackOptions: { ...SCALE_STACK, workers: 0 },
  startProcesses: async () => {
    workers.push(...(await Promise.all([stack().addWorker(), stack().addWorker()])));
  },
});

type Answer = {
  runId: string;
  status: number;
  outcome: string;
  costWei: number;
  /** The error's message, for a refusal. */
  message?: string;
  at: number;
};

/** One run of 200 to 1,000 ms at the agent, through renter `n % RENTERS`'s API process. */
async function request(renters: Renter[], n: number): Promise<Answer> {
  const renter = renters[n % RENTERS] as Renter;
  const reply = await renter.api.post("/v1/execute", {
    agent_id: listing().agentId,
    task: behaving({ delayMs: 200 + ((n * 137) % 800) }),
  });
  return {
    runId: reply.body.run_id,
    status: reply.status,
    outcome: reply.body.status,
    costWei: reply.body.cost_wei,
    message: reply.body.error?.message,
    at: Date.now(),
  };
}

/** Renters each on an API process of their own, with enough balance for every run they send. */
function rentersOnEachApi(runsEach: number): Promise<Renter[]> {
  return Promise.all(
    Array.from({ length: RENTERS }, (_, i) =>
      addRenter(PRICE * BigInt(runsEach), () => stack().apis[i]?.url as string),
    ),
  );
}

/**
 * Sends `AT_ONCE` requests, applies `fault` once five of them are charged, then sends `AFTER_FAULT`
 * more; returns the answers, and figures to print.
 */
async function underLoad(renters: Renter[], fault: () => Promise<void>) {
  const before = await debitedRuns();
  const startedAt = Date.now();
  const answers = Array.from({ length: AT_ONCE }, (_, n) => request(renters, n));
  await until("the first runs to be charged", async () => (await debitedRuns()) >= before + 5);
  const faultAt = Date.now();
  await fault();
  for (let n = AT_ONCE; n < AT_ONCE + AFTER_FAULT; n++) answers.push(request(renters, n));
  const answered = await Promise.all(answers);
  const endedAt = Date.now();
  return {
    answered,
    figures: {
      runsPerSecond: Number(((answered.length * 1000) / (endedAt - startedAt)).toFixed(1)),
      faultAfterMs: faultAt - startedAt,
      ...recoveryFigures(
        answered.map((answer) => answer.at),
        faultAt,
      ),
    },
  };
}

async function debitedRuns(): Promise<number> {
  const [row] = await stack()
    .db.select({ n: count() })
    .from(runs)
    .where(and(eq(runs.onChainListingId, listing().listingId), eq(runs.charge, "debited")));
  return row?.n ?? 0;
}

const completedOnce = {
  status: 200,
  outcome: "completed",
  costWei: Number(PRICE),
};

it("answers every run completed and charged once under load, with no fault (the baseline)", async () => {
  const renters = await rentersOnEachApi(AT_ONCE + AFTER_FAULT);
  const { answered, figures } = await underLoad(renters, async () => {});
  expect(answered.map(({ status, outcome, costWei }) => ({ status, outcome, costWei }))).toEqual(
    Array(answered.length).fill(completedOnce),
  );
  console.info(`${answered.length} runs over 3 API processes and 2 workers, no fault`, figures);
});

it("answers every run completed and charged once, or refused before it ran, when the node leading the runs stream is SIGKILLed under load", async () => {
  const { nats } = stack();
  await streamReplicated(nats, RUN_SUBJECT);
  const renters = await rentersOnEachApi(AT_ONCE + AFTER_FAULT);
  const leader = await streamLeader(nats, RUN_SUBJECT);

  const { answered, figures } = await underLoad(renters, () => leader.killServer());
  // A run admitted into a free slot while no node led the stream could not be handed to the
  // workers: refused 503, never run or charged (docs/execution.md). Every other run completed.
  const refused = answered.filter((answer) => answer.status === 503);
  for (const { message } of refused) expect(message).toMatch(/could not be handed to the workers/);
  const completed = answered.filter((answer) => answer.status !== 503);
  expect(completed.map(({ status, outcome, costWei }) => ({ status, outcome, costWei }))).toEqual(
    Array(completed.length).fill(completedOnce),
  );
  const runIds = completed.map((answer) => answer.runId);
  expect(new Set(runIds).size).toBe(runIds.length);
  expect(runIds.map((runId) => agent().callsOf(runId))).toEqual(Array(runIds.length).fill(1));
  const notHandedOver = await stack()
    .db.select({ id: runs.id, charge: runs.charge })
    .from(runs)
    .where(
      and(eq(runs.onChainListingId, listing().listingId), eq(runs.failure, RUN_NOT_HANDED_OVER)),
    );
  expect(notHandedOver).toHaveLength(refused.length);
  for (const run of notHandedOver) {
    expect({ charge: run.charge, calls: agent().callsOf(run.id) }).toEqual({
      charge: "released",
      calls: 0,
    });
  }

  const restartedAt = Date.now();
  await leader.startServer();
  await streamReplicated(nats, RUN_SUBJECT);
  console.info(
    `${answered.length} runs over 3 API processes and 2 workers, the runs' leader SIGKILLed`,
    {
      ...figures,
      refused: refused.length,
      nodeRejoinedInMs: Date.now() - restartedAt,
    },
  );
});

it("answers every run completed, or failed as interrupted and uncharged, when a worker is SIGKILLed under load", async () => {
  const renters = await rentersOnEachApi(AT_ONCE + AFTER_FAULT);
  const [victim] = workers as [Worker];

  const { answered, figures } = await underLoad(renters, async () => {
    victim.kill("SIGKILL");
    await victim.exited;
  });
  for (const { status, outcome, costWei } of answered) {
    expect({ status, outcome, costWei }).toEqual(
      outcome === "completed" ? completedOnce : { status: 200, outcome: "failed", costWei: 0 },
    );
  }
  const runIds = answered.map((answer) => answer.runId);
  expect(new Set(runIds).size).toBe(runIds.length);
  const failedIds = answered
    .filter((answer) => answer.outcome !== "completed")
    .map((answer) => answer.runId);
  const failed = failedIds.length
    ? await stack()
        .db.select({ status: runs.status, failure: runs.failure, charge: runs.charge })
        .from(runs)
        .where(inArray(runs.id, failedIds))
    : [];
  expect(failed).toEqual(
    failedIds.map(() => ({ status: "failed", failure: RUN_INTERRUPTED, charge: "released" })),
  );
  // The agent ran each completed run once, and an interrupted one at most once: never again.
  for (const answer of answered) {
    const calls = agent().callsOf(answer.runId);
    if (answer.outcome === "completed") expect(calls).toBe(1);
    else expect(calls).toBeLessThanOrEqual(1);
  }
  console.info(`${answered.length} runs over 3 API processes and 2 workers, a worker SIGKILLed`, {
    ...figures,
    interrupted: failedIds.length,
  });
});

it("kept the books: the chain debited exactly the completed runs, each once", async () => {
  const books = await expectBooksBalance();
  const completed = [...books.values()].filter((run) => run.status === "completed").length;
  expect(await debitedRuns()).toBe(completed);
});
