// Postgres restarted (stopped, then started again on the same port and cluster: its sessions end,
// connections are refused meanwhile), not frozen, on the real stack (an API process, a worker process
// over NATS JetStream settling on anvil, a connected agent listed per task) while per-task runs are in
// flight at the agent: half of them, one streamed, answer while it is down, so their worker's first
// write of their end meets the outage; the others answer once it is back. While it is down the API
// answers at once with the spec's error object, 503 `service_unavailable`: a new request, with
// `Retry-After`, and each request waiting on a run, naming the run, which goes on. Every admitted run
// ends completed and charged once, or failed and not charged; the runs' costs, the chain's debits and
// the balance's decrease are one sum; a run sent afterwards completes.
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { expect, it } from "vitest";
import { runs } from "../../lib/db/appSchema.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { expectError, type JsonResponse } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { heardSince } from "../support/processOutput.ts";
import { until } from "../support/registration.ts";
import { sseReader } from "../support/sseEvents.ts";

const PRICE = parseEther("0.001");
const IN_FLIGHT = 6;
/** The agent answers the runs below this one while Postgres is down, the others once it is back. */
const ANSWERED_WHILE_DOWN = 3;
/** Every third run is streamed: one of each half. */
const isStreamed = (n: number) => n % 3 === 2;
/** While the database is down, a request needing it is refused within this, never held. */
const ANSWER_MS = 3_000;
/** Within this of the restart a new run is answered completed again. */
const RECOVERY_MS = 30_000;

/** Everything the stack's processes print. */
const output: string[] = [];
const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "postgres-restart",
  price: PRICE,
  // Text output, the deltas joined.
  outputSchema: { type: "string" },
  stackOptions: { onOutput: (line) => output.push(line) },
  startProcesses: () => stack().addWorker(),
});

/**
 * A run's answer: the synchronous route's status, `Retry-After` and body, or the last event of a
 * stream (`done`, or an `error` with the error object).
 */
type Answer = {
  status: number;
  retryAfter?: string | null;
  event?: string;
  body: JsonResponse["body"];
};

/** A run sent: `deltas` are those its stream relayed so far, `answered` its answer once it came. */
type InFlight = { answer: Promise<Answer>; deltas: string[]; answered?: Answer };

/** Run `n`, held at the agent until `release(run-n)`. */
function inFlightRun(renter: Renter, n: number): InFlight {
  const body = {
    agent_id: listing().agentId,
    task: behaving({ hold: `run-${n}`, deltas: ["a", "b"] }),
  };
  const run: InFlight = { deltas: [], answer: Promise.resolve({ status: 0, body: undefined }) };
  const answer = isStreamed(n)
    ? streamedRun(renter, body, run.deltas)
    : renter.api.post("/v1/execute", body).then(({ status, headers, body }) => ({
        status,
        retryAfter: headers.get("retry-after"),
        body,
      }));
  run.answer = answer.then((answer) => {
    run.answered = answer;
    return answer;
  });
  return run;
}

async function streamedRun(renter: Renter, body: object, deltas: string[]): Promise<Answer> {
  const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) return { status: response.status, body: await response.json() };
  const reader = sseReader(response);
  let last: Answer = { status: 200, body: undefined };
  for (let item = await reader.next(); item; item = await reader.next()) {
    if (!("event" in item)) continue;
    const data = JSON.parse(item.data);
    if (item.event === "output") deltas.push(data.delta);
    last = { status: 200, event: item.event, body: data };
  }
  return last;
}

it("restarts Postgres under per-task runs in flight: 503 while it is down, each run charged once or not at all, the books balance", async () => {
  const renter = await addRenter(PRICE * 20n);
  const held = new Set<number>();
  const inFlight = Array.from({ length: IN_FLIGHT }, (_, n) => {
    void agent()
      .held(`run-${n}`)
      .then(() => held.add(n));
    return inFlightRun(renter, n);
  });
  await until("every run running, held at the agent", () => held.size === IN_FLIGHT);
  const admitted = await stack()
    .db.select({ id: runs.id, status: runs.status, request: runs.request })
    .from(runs)
    .where(eq(runs.onChainListingId, listing().listingId));
  expect(admitted.map((row) => row.status)).toEqual(Array(IN_FLIGHT).fill("running"));
  const idOf = new Map(
    admitted.map((row) => [JSON.parse(row.request?.task ?? "{}").hold as string, row.id]),
  );
  const runIds = Array.from({ length: IN_FLIGHT }, (_, n) => idOf.get(`run-${n}`) as string);

  const heardBefore = output.length;
  const refusals: { what: string; reply: JsonResponse; ms: number }[] = [];
  const refusal = async (what: string, send: () => Promise<JsonResponse>) => {
    const sentAt = Date.now();
    const reply = await send();
    refusals.push({ what, reply, ms: Date.now() - sentAt });
  };
  let downFrom = 0;
  let downUntil = 0;
  await stack().postgres.restart(async () => {
    downFrom = Date.now();
    for (let n = 0; n < ANSWERED_WHILE_DOWN; n++) agent().release(`run-${n}`);
    await refusal("a new run", () =>
      renter.api.post("/v1/execute", { agent_id: listing().agentId, task: behaving() }),
    );
    await refusal("a run in flight", () => renter.api.get(`/v1/runs/${runIds[0]}`));
    await refusal("the renter's runs", () => renter.api.get("/v1/runs"));
    // The bus is up: the stream of a run answered meanwhile relays its deltas.
    const streamedWhileDown = inFlight.find((_, n) => n < ANSWERED_WHILE_DOWN && isStreamed(n));
    await until(
      "the deltas of the run streamed while Postgres is down",
      () => streamedWhileDown?.deltas.join("") === "ab",
    );
    // The worker has met refused connections, not only the sessions' end.
    await until("the settlement to be refused by Postgres", () =>
      heardSince(output, heardBefore, "settlement step failed", "ECONNREFUSED"),
    );
    // Each request waiting on its run reads it again within a second: unreadable, it is answered.
    await until(
      "every request waiting on its run answered",
      () => inFlight.every((run) => run.answered !== undefined),
      ANSWER_MS * 2,
    );
    downUntil = Date.now();
  });
  for (let n = ANSWERED_WHILE_DOWN; n < IN_FLIGHT; n++) agent().release(`run-${n}`);
  console.info(`Postgres was down for ${downUntil - downFrom} ms`);

  for (const { what, reply, ms } of refusals) {
    expectError(reply, 503, "service_unavailable");
    expect({
      what,
      retryAfter: Number(reply.headers.get("retry-after")) > 0,
      fast: ms < ANSWER_MS,
    }).toEqual({ what, retryAfter: true, fast: true });
  }
  // A request waiting on its run whose row cannot be read: 503 naming the run, which goes on (an
  // `error` event on a stream, whose status was sent with its headers).
  const answers = await Promise.all(inFlight.map(({ answer }) => answer));
  answers.forEach((answer, n) => {
    const runId = runIds[n] as string;
    const streamed = answer.event !== undefined;
    expect({ n, streamed, event: answer.event }).toEqual({
      n,
      streamed: isStreamed(n),
      event: streamed ? "error" : undefined,
    });
    expectError(
      { status: streamed ? 503 : answer.status, body: answer.body },
      503,
      "service_unavailable",
    );
    expect(answer.body.error.message, `run ${n}`).toContain(`GET /v1/runs/${runId}`);
    if (!streamed) expect(Number(answer.retryAfter), `run ${n}`).toBeGreaterThan(0);
  });

  // Afterwards a run is admitted, run and charged again.
  const after = await until(
    "a run answered completed after the restart",
    async () => {
      const reply = await renter.api.post("/v1/execute", {
        agent_id: listing().agentId,
        task: behaving({ deltas: ["a", "b"] }),
      });
      if (reply.status === 503) return false;
      expect({ status: reply.status, run: reply.body.status }).toEqual({
        status: 200,
        run: "completed",
      });
      return reply.body.run_id as string;
    },
    RECOVERY_MS,
  );

  const books = await expectBooksBalance();
  const rows = [...books.values()];
  // Completed and charged once, or failed and not charged; no other run admitted.
  for (const row of rows) {
    const outcome = { status: row.status, charge: row.charge };
    expect([
      { status: "completed", charge: "debited" },
      { status: "failed", charge: "released" },
    ]).toContainEqual(outcome);
    if (row.status === "completed") expect(BigInt(row.costWei), row.id).toBe(PRICE);
  }
  expect(rows.map((row) => row.id).sort()).toEqual([...runIds, after].sort());
  for (const runId of [...runIds, after]) {
    const reply = await renter.api.get(`/v1/runs/${runId}`);
    const row = books.get(runId);
    expect(reply.body, runId).toMatchObject({
      run_id: runId,
      status: row?.status,
      cost_wei: row?.status === "completed" ? Number(PRICE) : 0,
    });
    expect(agent().callsOf(runId), runId).toBe(1);
  }
  // The runs answered while Postgres was down reached their end then; their worker wrote it once it
  // was back, the outage being shorter than its attempts (lib/runLedger/finishRun.ts): completed.
  for (const runId of runIds.slice(0, ANSWERED_WHILE_DOWN)) {
    const row = books.get(runId);
    if (!row?.startedAt || !row.finishedAt) throw new Error(`run ${runId} has no start or end`);
    expect({
      endedWhileDown: row.startedAt.getTime() + (row.durationMs ?? 0) < downUntil,
      writtenOnceBack: row.finishedAt.getTime() >= downUntil,
      status: row.status,
    }).toEqual({ endedWhileDown: true, writtenOnceBack: true, status: "completed" });
  }
}, 180_000);
