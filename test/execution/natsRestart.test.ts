// NATS restarted under load on the real stack: per-task runs of a connected agent waiting for slots,
// running (held at the agent until NATS is back) and done when it stops, more sent while it is down.
// Every run admitted before completes and is charged once; a request sent while it is down is
// answered the same, or, when the bus did not take its run in time, refused 503 with nothing run or
// charged, and its retry under the same Idempotency-Key once NATS is back completes and is charged
// once. The agent is called once per completed run and never for a refused one.
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { expect, it } from "vitest";
import { runs } from "../../lib/db/appSchema.ts";
import { RUNS_IN_FLIGHT_PER_LISTING } from "../../lib/runLedger/grantSlots.ts";
import { RUN_NOT_HANDED_OVER } from "../../lib/runLedger/runNotStarted.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { expectError } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";

const PRICE = parseEther("0.001");
const BEFORE_OUTAGE = 40;
/** Runs from this one on wait at the agent until NATS is back: the outage finds them running and waiting. */
const FIRST_HELD = 10;
const DURING_OUTAGE = 10;
const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "under-load",
  price: PRICE,
  // Text output, the deltas joined: a stream completes deltas lost with NATS from the stored output.
  outputSchema: { type: "string" },
  env: { RUN_LEASE_MS: "3000" },
  startProcesses: () => Promise.all([stack().addWorker(), stack().addWorker()]),
});

/** What a renter was answered: the run, and for a stream the output its events spelled. */
type Answer = { status: number; runId: string; outcome: string; costWei: number; text?: string };

/** Every third run streamed, the others synchronous; resolves with what the renter was answered. */
async function request(renter: Renter, n: number, idempotencyKey?: string): Promise<Answer> {
  const keyed: Record<string, string> = idempotencyKey ? { "idempotency-key": idempotencyKey } : {};
  const body = {
    agent_id: listing().agentId,
    task: behaving({
      deltas: ["a", "b"],
      deltaGapMs: 200 + ((n * 137) % 1_200),
      ...(n >= FIRST_HELD ? { hold: "outage" } : {}),
    }),
  };
  if (n % 3 !== 0) {
    const reply = await renter.api.post("/v1/execute", body, { headers: keyed });
    const { run_id, status, cost_wei, output } = reply.body;
    return {
      status: reply.status,
      runId: run_id,
      outcome: status,
      costWei: cost_wei,
      text: output,
    };
  }
  const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${renter.bearer}`,
      "content-type": "application/json",
      ...keyed,
    },
    body: JSON.stringify(body),
  });
  // A refusal is an error object, not a stream: answered as the synchronous route's is.
  if (response.status !== 200) {
    const { run_id, status, cost_wei } = (await response.json()) as {
      run_id: string;
      status: string;
      cost_wei: number;
    };
    return { status: response.status, runId: run_id, outcome: status, costWei: cost_wei };
  }
  const events = eventsOf(await sseReader(response).rest());
  const done = events.at(-1)?.data ?? {};
  return {
    status: response.status,
    runId: done.run_id,
    outcome: done.status,
    costWei: done.cost_wei,
    text: events.flatMap((event) => (event.event === "output" ? [event.data.delta] : [])).join(""),
  };
}

/** How long a client refused 503 waits before it sends the same request again. */
const RETRY_PAUSE_MS = 200;

/**
 * A request sent while NATS is down, under an Idempotency-Key: a refusal (503) is sent again under the
 * same key once `natsBack` resolves, until answered otherwise.
 */
async function retriedOnceBack(renter: Renter, n: number, natsBack: Promise<void>) {
  let refusals = 0;
  let answer = await request(renter, n, `outage-${n}`);
  while (answer.status === 503) {
    refusals++;
    await natsBack;
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    answer = await request(renter, n, `outage-${n}`);
  }
  return { answer, refusals };
}

async function statusesOf(listingId: string) {
  const rows = await stack()
    .db.select({ status: runs.status, charge: runs.charge })
    .from(runs)
    .where(eq(runs.onChainListingId, listingId));
  return rows;
}

it("answers every per-task run completed and charged once when NATS restarts under load", async () => {
  const renters = await Promise.all([1, 2, 3].map(() => addRenter(PRICE * 20n)));
  const renterOf = (n: number) => renters[n % renters.length] as Renter;
  const answers = Array.from({ length: FIRST_HELD }, (_, n) => request(renterOf(n), n));
  await until("some runs to be charged", async () => {
    const rows = await statusesOf(listing().listingId);
    return rows.filter((row) => row.charge === "debited").length >= 8;
  });
  for (let n = FIRST_HELD; n < BEFORE_OUTAGE; n++) answers.push(request(renterOf(n), n));
  await until("every slot to run a held run, the rest waiting", async () => {
    const rows = await statusesOf(listing().listingId);
    const count = (status: string) => rows.filter((row) => row.status === status).length;
    return (
      count("running") === RUNS_IN_FLIGHT_PER_LISTING &&
      count("waiting") === BEFORE_OUTAGE - FIRST_HELD - RUNS_IN_FLIGHT_PER_LISTING
    );
  });

  await stack().nats.stopServer();
  let atOutage: Awaited<ReturnType<typeof statusesOf>>;
  let natsIsBack = () => {};
  const natsBack = new Promise<void>((resolve) => {
    natsIsBack = resolve;
  });
  const duringOutage: ReturnType<typeof retriedOnceBack>[] = [];
  try {
    atOutage = await statusesOf(listing().listingId);
    for (let n = BEFORE_OUTAGE; n < BEFORE_OUTAGE + DURING_OUTAGE; n++) {
      duringOutage.push(retriedOnceBack(renterOf(n), n, natsBack));
    }
    // NATS stays down until every request sent meanwhile has its run, waiting for a slot or refused.
    await until("every request sent during the outage to have its run", async () => {
      const rows = await statusesOf(listing().listingId);
      return rows.length >= BEFORE_OUTAGE + DURING_OUTAGE;
    });
  } finally {
    await stack().nats.startServer();
    natsIsBack();
    agent().release("outage");
  }
  const retried = await Promise.all(duringOutage);
  answers.push(...retried.map(({ answer }) => Promise.resolve(answer)));
  console.info(
    `requests sent while NATS was down refused before succeeding: ${retried.map(({ refusals }) => refusals).join(", ")}`,
  );

  const answered = await Promise.all(answers);
  // Mid-load: runs were waiting, running and done when NATS went.
  expect(atOutage.map((row) => row.status)).toEqual(
    expect.arrayContaining(["waiting", "running", "completed"]),
  );
  expect(answered.map(({ runId: _, ...answer }) => answer)).toEqual(
    Array(BEFORE_OUTAGE + DURING_OUTAGE).fill({
      status: 200,
      outcome: "completed",
      costWei: Number(PRICE),
      text: "ab",
    }),
  );
  const runIds = answered.map(({ runId }) => runId);
  expect(new Set(runIds).size).toBe(runIds.length);
  expect(runIds.map((runId) => agent().callsOf(runId))).toEqual(Array(runIds.length).fill(1));

  const books = await expectBooksBalance();
  const rows = [...books.values()];
  const completedIds = rows.filter((row) => row.status === "completed").map((row) => row.id);
  expect(completedIds.sort()).toEqual([...runIds].sort());
  const refused = rows.filter((row) => row.status !== "completed");
  expect(refused.map((row) => ({ failure: row.failure, calls: agent().callsOf(row.id) }))).toEqual(
    refused.map(() => ({ failure: RUN_NOT_HANDED_OVER, calls: 0 })),
  );
});

it("refuses a run the bus cannot take while NATS is down, running and charging nothing, and completes its retry under the same Idempotency-Key once NATS is back", async () => {
  const renter = await addRenter(PRICE);
  const body = { agent_id: listing().agentId, task: behaving({ deltas: ["a", "b"] }) };
  const keyed = { headers: { "idempotency-key": "refused-then-retried" } };

  await stack().nats.stopServer();
  let refusal: Awaited<ReturnType<typeof renter.api.post>>;
  let answeredInMs: number;
  try {
    const sentAt = Date.now();
    refusal = await renter.api.post("/v1/execute", body, keyed);
    answeredInMs = Date.now() - sentAt;
  } finally {
    await stack().nats.startServer();
  }
  expectError(refusal, 503, "service_unavailable");
  expect(refusal.body.error.message).toMatch(/could not be handed to the workers in time/);
  expect(Number(refusal.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(answeredInMs).toBeLessThan(3_000);

  // A retry while the API's connection is still coming back may be refused the same way.
  let refusals = 1;
  let retry = await renter.api.post("/v1/execute", body, keyed);
  while (retry.status === 503) {
    refusals++;
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    retry = await renter.api.post("/v1/execute", body, keyed);
  }
  expect(retry.body).toMatchObject({ status: "completed", output: "ab", cost_wei: Number(PRICE) });
  expect(agent().callsOf(retry.body.run_id)).toBe(1);

  const rows = [...(await expectBooksBalance()).values()].filter(
    (row) => row.wallet === renter.account.address.toLowerCase(),
  );
  const outcomes = rows.map(({ status, charge, failure }) => ({ status, charge, failure }));
  expect(outcomes.filter(({ status }) => status === "completed")).toEqual([
    { status: "completed", charge: "debited", failure: null },
  ]);
  expect(outcomes.filter(({ status }) => status !== "completed")).toEqual(
    Array(refusals).fill({ status: "failed", charge: "released", failure: RUN_NOT_HANDED_OVER }),
  );
});
