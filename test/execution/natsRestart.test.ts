// NATS restarted under load on the real stack: per-task runs of a connected agent waiting for slots,
// running and awaiting their debit when it stops, more admitted while it is down. Every request is
// answered with its run completed and charged once, the agent called once per run.
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { expect, it } from "vitest";
import { runs } from "../../lib/db/appSchema.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";

const PRICE = parseEther("0.001");
const BEFORE_OUTAGE = 40;
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
async function request(renter: Renter, n: number): Promise<Answer> {
  const body = {
    agent_id: listing().agentId,
    task: behaving({ deltas: ["a", "b"], deltaGapMs: 200 + ((n * 137) % 1_200) }),
  };
  if (n % 3 !== 0) {
    const reply = await renter.api.post("/v1/execute", body);
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
    headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
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
  const answers = Array.from({ length: BEFORE_OUTAGE }, (_, n) => request(renterOf(n), n));
  await until("some runs to be charged", async () => {
    const rows = await statusesOf(listing().listingId);
    return rows.filter((row) => row.charge === "debited").length >= 8;
  });

  await stack().nats.stopServer();
  let atOutage: Awaited<ReturnType<typeof statusesOf>>;
  try {
    atOutage = await statusesOf(listing().listingId);
    for (let n = BEFORE_OUTAGE; n < BEFORE_OUTAGE + DURING_OUTAGE; n++) {
      answers.push(request(renterOf(n), n));
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } finally {
    await stack().nats.startServer();
  }

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
  expect([...books.keys()].sort()).toEqual([...runIds].sort());
});
