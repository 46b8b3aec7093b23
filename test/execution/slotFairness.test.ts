// Fair slots on the real stack (an API process, a worker process over NATS JetStream, settlement on
// anvil, Ponder indexing, a slow connected agent): one renter sends 100 runs at once, a second renter
// then sends one, and the second renter's run takes the next slot that frees, ahead of every run of
// the first renter still waiting. The first renter's runs no slot freed for in time are refused with
// a 503 to retry later, and the listing's run_count and success_rate count only the runs that ran.
import { eq, inArray } from "drizzle-orm";
import { parseEther } from "viem";
import { beforeAll, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { type RunRow, runs } from "../../lib/db/appSchema.ts";
import { RUNS_IN_FLIGHT_PER_LISTING } from "../../lib/runLedger/grantSlots.ts";
import { refusedBeforeStart } from "../../lib/runLedger/runNotStarted.ts";
import { type AgentBehaviour, behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { expectError, http, type JsonResponse, signIn } from "../support/http.ts";
import { indexedFigures } from "../support/listingFigures.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";

const PRICE = parseEther("0.001");
const FIRST_RENTER_RUNS = 100;
/** How long the agent takes over a run: 100 runs need five turns of the 20 slots, 7.5 s at least. */
const AGENT_DELAY_MS = 1_500;
/** A run waiting longer than this is refused: short enough that some of the 100 are. */
const QUEUE_WAIT_MS = 5_000;

const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "slot-fairness",
  price: PRICE,
  env: { RUN_QUEUE_WAIT_MS: String(QUEUE_WAIT_MS) },
  startProcesses: () => stack().addWorker(),
});

beforeAll(async () => {
  // 100 executions at once from one credential: the default limit (60 a minute) would refuse some.
  const creator = devAccount(2);
  const creatorApi = http(stack().api.url, { bearer: await signIn(stack().api.url, creator) });
  const raised = await creatorApi.put(`/v1/listings/${listing().agentId}/execution-limit`, {
    requests_per_minute: 2 * FIRST_RENTER_RUNS,
  });
  expect(raised.status, JSON.stringify(raised.body)).toBe(200);
});

const execute = (renter: Renter, behaviour: AgentBehaviour) =>
  renter.api.post("/v1/execute", { agent_id: listing().agentId, task: behaving(behaviour) });

const runsOf = (renter: Renter) =>
  stack().db.select().from(runs).where(eq(runs.wallet, renter.account.address.toLowerCase()));

const runsByIds = (ids: string[]) => stack().db.select().from(runs).where(inArray(runs.id, ids));

/** The hold a run of the first renter waits at on the agent, as its task names it. */
const holdOf = (row: RunRow) => (JSON.parse(row.request?.task ?? "{}") as AgentBehaviour).hold;

it("finding M-7: gives a second renter the next free slot ahead of a first renter's 100 runs, and counts no refused run", async () => {
  const first = await addRenter(PRICE * BigInt(FIRST_RENTER_RUNS));
  const second = await addRenter(PRICE);

  // Each of the first renter's runs waits at a hold of its own on the agent, then takes its time:
  // until a hold is released no slot frees, so who waits when the second renter's run comes is known.
  const firstHolds = Array.from({ length: FIRST_RENTER_RUNS }, (_, n) => `first-${n}`);
  const firstAnswers = Promise.all(
    firstHolds.map((hold) => execute(first, { hold, delayMs: AGENT_DELAY_MS })),
  );
  const held = await until("the first renter's runs admitted, holding every slot", async () => {
    const rows = await runsOf(first);
    const running = rows.filter((row) => row.status === "running");
    return (
      rows.length === FIRST_RENTER_RUNS && running.length === RUNS_IN_FLIGHT_PER_LISTING && running
    );
  });

  const secondAnswer = execute(second, {});
  const admitted = await until("the second renter's run admitted", async () => {
    const [row] = await runsOf(second);
    return row;
  });
  expect(admitted.status, "every slot is held: the second renter's run waits").toBe("waiting");
  const waitingAtAdmission = (await runsOf(first))
    .filter((row) => row.status === "waiting")
    .map((row) => row.id);

  // One slot turns over: the run in it ends, and its slot goes to the second renter's run (granted)
  // or to one of the first renter's (started). Then every slot turns over, again and again.
  agent().release(holdOf(held[0] as RunRow) as string);
  const atGrant = await until("the freed slot granted", async () => {
    const rows = await runsByIds([admitted.id, ...waitingAtAdmission]);
    const taken = rows.some((row) =>
      row.id === admitted.id ? row.status !== "waiting" : row.startedAt !== null,
    );
    return taken && rows;
  });
  for (const hold of firstHolds) agent().release(hold);
  const answers = await firstAnswers;
  const answer = await secondAnswer;

  // 1. No run of the first renter still waiting when the second renter's run was admitted started
  // before it, but perhaps one granted with it in the same grant.
  const [secondRun] = await runsOf(second);
  const waited = await runsByIds(waitingAtAdmission);
  const stillWaiting = atGrant.filter((row) => row.id !== admitted.id && row.status === "waiting");
  const startedAhead = waited.filter(
    (row) =>
      row.startedAt !== null && (!secondRun?.startedAt || row.startedAt < secondRun.startedAt),
  );
  console.info(
    `${waitingAtAdmission.length} of the first renter's runs waited when the second renter's was admitted;`,
    `${startedAhead.length} of them started before it, ${waited.filter((row) => row.startedAt).length} in all;`,
    `${stillWaiting.length} still waited when its slot was granted`,
  );
  expect(
    startedAhead.length,
    "runs of the first renter that waited, started first",
  ).toBeLessThanOrEqual(1);
  expect([answer.status, answer.body.status]).toEqual([200, "completed"]);
  // The check meant something: when the slot was granted, runs of the first renter still waited for one.
  expect(stillWaiting.length).toBeGreaterThan(0);

  // 2. Every run of the first renter either ran to completion or was refused, before it started,
  // with a 503 to retry later; some were refused.
  const completed = answers.filter((reply) => reply.status === 200);
  const refused = answers.filter((reply) => reply.status !== 200);
  console.info(
    `the first renter's ${FIRST_RENTER_RUNS} runs: ${completed.length} completed, ${refused.length} refused`,
  );
  expect(completed.map((reply) => reply.body.status)).toEqual(completed.map(() => "completed"));
  for (const reply of refused) expectRefusedBeforeStart(reply);
  expect(completed.length).toBeGreaterThanOrEqual(RUNS_IN_FLIGHT_PER_LISTING);
  expect(refused.length).toBeGreaterThan(0);

  // Once settlement has logged every run and Ponder has indexed it, the listing counts the runs that
  // ran, all completed, and none of those refused.
  const settled = [...(await expectBooksBalance()).values()];
  const ran = settled.filter((row) => row.startedAt !== null);
  expect(ran.map((row) => row.status)).toEqual(ran.map(() => "completed"));
  expect(ran).toHaveLength(completed.length + 1);
  const notStarted = settled.filter((row) => row.startedAt === null);
  expect(notStarted.map((row) => [row.status, refusedBeforeStart(row.failure)])).toEqual(
    refused.map(() => ["failed", true]),
  );
  expect(await indexedFigures(stack(), listing(), second.api)).toEqual({
    run_count: completed.length + 1,
    success_rate: 1,
  });
}, 120_000);

/** A 503 `service_unavailable` that says when to retry: nothing was run or charged. */
function expectRefusedBeforeStart(reply: JsonResponse) {
  expectError(reply, 503, "service_unavailable");
  expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
}
