// Postgres, then the chain, then NATS frozen (SIGSTOP) for 12 s each under a steady light load on the
// real stack. Every request is answered within 3 s: 503 `service_unavailable` with `Retry-After` when
// it needs what is frozen (the chain's last announced head stands for `CHAIN_HEAD_ALIVE_MS` after
// its node's last answer), as usual when it does not; within 5 s of SIGCONT everything answers as
// usual again, with no restart, and the API holds no more connections than its pool. Nothing is lost:
// runs going when a freeze begins complete, registrations taken while NATS is frozen are processed,
// and executions refused while it is frozen never run, though their commands reach the workers late.
import { eq, sql } from "drizzle-orm";
import { parseEther } from "viem";
import { beforeAll, expect, it } from "vitest";
import {
  CHAIN_HEAD_ALIVE_MS,
  DATABASE_CONNECTIONS,
  DATABASE_IDLE_IN_TRANSACTION_MS,
} from "../../api/limits.ts";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { RUN_NOT_HANDED_OVER } from "../../lib/runLedger/runNotStarted.ts";
import { newWallet } from "../settlement/settlementFixtures.ts";
import {
  type BehavingAgent,
  behaving,
  SUMMARY_SCHEMA,
  startBehavingAgent,
} from "../support/behavingAgent.ts";
import { registerAndListAgent } from "../support/connectedListing.ts";
import { http, type JsonResponse, signIn } from "../support/http.ts";
import { settledJob, until } from "../support/registration.ts";
import { readRun } from "../support/runRows.ts";
import { type LoadAnswer, steadyLoad } from "../support/steadyLoad.ts";
import { useStack } from "../support/useStack.ts";

/**
 * Every request is answered within this, whatever is frozen, by the API's own clock (the
 * `duration_ms` of its access log): its deadlines on each dependency add up to less (api/limits.ts)…
 */
const ANSWER_MS = 3_000;
/**
 * …and reaches the client within this: the API's bound, plus what a loaded machine adds between
 * client and server. Still far short of a freeze: no answer waits for the dependency to come back.
 */
const CLIENT_ANSWER_MS = ANSWER_MS + 3_000;
/**
 * The passing of time is what is tested: a freeze outlasts every deadline and timeout the API and
 * Postgres set (the longest, `DATABASE_IDLE_IN_TRANSACTION_MS`), so each runs out during it.
 */
const FREEZE_MS = DATABASE_IDLE_IN_TRANSACTION_MS + 2_000;
/** Within this of SIGCONT everything answers as usual again. */
const RECOVERY_MS = 5_000;

/** Everything the stack's processes print, the API's access log among it. */
const output: string[] = [];

const stack = useStack({
  nats: true,
  api: 1,
  rateLimitPerMinute: 100_000,
  // What is checked is the API's answers, not the projections: Ponder may stall after the chain's
  // freeze, and the restart its supervisor would make takes the unfinalized blocks (here, all of
  // them) out of the projections for a moment, so a listing's credential would be a 404 meanwhile
  // (docs/operations.md, "The indexer"; test/scale/indexerStalls.test.ts checks the supervision).
  ponder: { supervised: false },
  // A run held up by a frozen Postgres keeps its lease through the freeze.
  env: { EXECUTION_RATE_LIMIT_PER_MINUTE: "10000", RUN_LEASE_MS: "60000" },
  onOutput: (chunk) => output.push(chunk),
});

type Dependency = "postgres" | "chain" | "nats";
const KINDS = ["listings", "credential", "run", "execute", "register"] as const;
type Kind = (typeof KINDS)[number];
/** The requests a freeze of each dependency turns into 503s; the others answer as usual. */
const NEEDS: Record<Dependency, Kind[]> = {
  postgres: [...KINDS],
  chain: ["credential", "execute"],
  // A run the bus does not take in time is refused, uncharged; a registration's job waits in the
  // outbox for the relay.
  nats: ["execute"],
};

let agent: BehavingAgent;
let renter: ReturnType<typeof http>;
let creator: ReturnType<typeof http>;
let listingId: string;
let agentEndpoint: string;
let firstRunId: string;

function connectedManifest(name: string) {
  return {
    name,
    category: "coding",
    description: "Answers as its task says",
    model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
    entrypoint_url: agentEndpoint,
    input_schema: { type: "object" },
    output_schema: SUMMARY_SCHEMA,
  };
}

beforeAll(async () => {
  agent = await startBehavingAgent(await ensureDevCertificates(stack().dir));
  await stack().addWorker();
  const creatorAccount = devAccount(2);
  creator = http(stack().api.url, { bearer: await signIn(stack().api.url, creatorAccount) });
  agentEndpoint = agent.url("/agents/steady");
  const listing = await registerAndListAgent(stack(), {
    creator: creatorAccount,
    creatorApi: creator,
    model: ONE_TIME,
    price: parseEther("0.001"),
    manifest: connectedManifest("steady"),
  });
  agent.trust(listing.webhookSecret);
  listingId = listing.agentId;

  const renterAccount = await newWallet(stack());
  const market = stack().marketplace;
  await market.mined(
    market
      .as(renterAccount)
      .write.purchaseOneTime([listing.listingId], { value: parseEther("0.001") }),
  );
  renter = http(stack().api.url, { bearer: await signIn(stack().api.url, renterAccount) });
  const first = await renter.post("/v1/execute", { agent_id: listingId, task: behaving() });
  expect(first.body.status).toBe("completed");
  firstRunId = first.body.run_id;
  return () => agent.close();
}, 120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const execute = (task: string) => renter.post("/v1/execute", { agent_id: listingId, task });
const usualStatus = (kind: Kind) => (kind === "register" ? 202 : 200);
/** The API's access-log entries among the lines printed since output chunk `from`. */
function accessLogSince(
  from: number,
): { request_id: string; path: string; status: number; duration_ms: number }[] {
  return output
    .slice(from)
    .join("")
    .split("\n")
    .filter((line) => line.includes('"component":"api"') && line.includes('"message":"request"'))
    .map((line) => JSON.parse(line));
}
/** The run an execution's answer names: its result's, or the 503's for a run still going. */
const runOf = ({ status, body }: Pick<JsonResponse, "status" | "body">) =>
  status === 200 ? body.run_id : /run_[0-9a-f]{24}/.exec(body.error.message)?.[0];

it("answers within 3 s while Postgres, the chain or NATS is frozen, and as usual within 5 s of each coming back", async () => {
  const apiExited = stack().api.exited.then(() => true);
  const heardBefore = output.length;
  let registrations = 0;
  const load = steadyLoad<Kind>(
    {
      listings: () => renter.get("/v1/listings"),
      credential: () => renter.get(`/v1/credentials/${listingId}`),
      run: () => renter.get(`/v1/runs/${firstRunId}`),
      execute: () => execute(behaving()),
      register: () => creator.post("/v1/agents", connectedManifest(`steady-${registrations++}`)),
    },
    250,
  );
  const processes = { postgres: stack().postgres, chain: stack().anvil, nats: stack().nats };
  const freezes: { dependency: Dependency; frozenAt: number; thawedAt: number }[] = [];
  /** An execution whose agent is still answering when each freeze begins. */
  const going: Promise<{ reply: JsonResponse; answeredAt: number }>[] = [];
  let answers: LoadAnswer<Kind>[];
  try {
    for (const dependency of ["postgres", "chain", "nats"] as const) {
      // A run at its agent when the freeze begins, answering during it.
      const hold = `going-${dependency}`;
      going.push(execute(behaving({ hold })).then((reply) => ({ reply, answeredAt: Date.now() })));
      await agent.held(hold);
      const frozenAt = Date.now();
      processes[dependency].kill("SIGSTOP");
      try {
        agent.release(hold);
        await sleep(FREEZE_MS);
      } finally {
        processes[dependency].kill("SIGCONT");
      }
      const thawedAt = Date.now();
      freezes.push({ dependency, frozenAt, thawedAt });
      await until(
        `every kind of request sent ${RECOVERY_MS} ms after the ${dependency} thawed answered`,
        () => {
          const recovered = load.answered().filter((a) => a.sentAt >= thawedAt + RECOVERY_MS);
          return new Set(recovered.map(({ kind }) => kind)).size === KINDS.length;
        },
      );
    }
  } finally {
    answers = await load.stop();
  }
  const goingAnswers = await Promise.all(going);
  // A request on a run going when a freeze began waits for its run (docs/operations.md): it is
  // bounded from the freeze's start below.
  const goingRequests = new Set(goingAnswers.map(({ reply }) => reply.headers.get("x-request-id")));
  const served = accessLogSince(heardBefore).filter(
    (entry) => !goingRequests.has(entry.request_id),
  );
  expect(served.length).toBeGreaterThanOrEqual(answers.length);
  // So does any execution answered with its run's result: it was admitted, and waited for the run,
  // not for a dependency (the runs the load admitted all complete, checked below).
  const answeredByItsRun = (path: string, status: number) =>
    path === "/v1/execute" && status === 200;
  expect(
    served.filter(
      (entry) => entry.duration_ms > ANSWER_MS && !answeredByItsRun(entry.path, entry.status),
    ),
  ).toEqual([]);
  const late = answers.filter(
    (answer) =>
      answer.answeredAt - answer.sentAt > CLIENT_ANSWER_MS &&
      !(answer.kind === "execute" && answer.status === 200),
  );
  expect(late).toEqual([]);
  // Every answer is the usual one, or the 503 a retry may help, saying when to retry.
  for (const { kind, status, body, retryAfter } of answers) {
    if (status === 503) {
      expect({ kind, code: body.error.code, retryAfter: Number(retryAfter) > 0 }).toEqual({
        kind,
        code: "service_unavailable",
        retryAfter: true,
      });
    } else expect({ kind, status }).toEqual({ kind, status: usualStatus(kind) });
  }

  for (const { dependency, frozenAt, thawedAt } of freezes) {
    // The head the chain announced stands until its node has been silent this long.
    const trusted = dependency === "chain" ? CHAIN_HEAD_ALIVE_MS : 0;
    const whileFrozen = answers.filter(
      (answer) => answer.sentAt >= frozenAt + trusted && answer.answeredAt <= thawedAt,
    );
    expect(new Set(whileFrozen.map(({ kind }) => kind)), dependency).toEqual(new Set(KINDS));
    for (const { kind, status } of whileFrozen) {
      expect({ dependency, kind, status }).toEqual({
        dependency,
        kind,
        status: NEEDS[dependency].includes(kind) ? 503 : usualStatus(kind),
      });
    }
    const nextFreeze = freezes.find((freeze) => freeze.frozenAt > thawedAt)?.frozenAt;
    const recovered = answers.filter(
      (answer) =>
        answer.sentAt >= thawedAt + RECOVERY_MS && answer.answeredAt < (nextFreeze ?? Infinity),
    );
    expect(recovered.length, dependency).toBeGreaterThanOrEqual(KINDS.length);
    expect(
      recovered.filter(({ kind, status }) => status !== usualStatus(kind)),
      dependency,
    ).toEqual([]);
  }

  // Nothing lost: the runs going when a freeze began, and every run an answer names, complete…
  // (Their requests are answered soon after the freeze began too.)
  const lateAfterFreeze = goingAnswers.filter(
    ({ answeredAt }, n) => answeredAt - (freezes[n]?.frozenAt ?? 0) > CLIENT_ANSWER_MS,
  );
  expect(lateAfterFreeze).toEqual([]);
  const runIds = [
    ...goingAnswers.map(({ reply }) => runOf(reply)),
    ...answers.filter(({ kind }) => kind === "execute").map(runOf),
  ];
  expect(goingAnswers.map(({ reply }) => runOf(reply))).toEqual([
    expect.any(String),
    expect.any(String),
    expect.any(String),
  ]);
  for (const runId of runIds.filter(Boolean)) {
    await until(
      `run ${runId} to complete`,
      async () => (await readRun(stack(), runId)).status === "completed",
      30_000,
    );
  }
  // …and every registration the API took is processed, those the bus did not take at once too.
  for (const { body } of answers.filter(
    ({ kind, status }) => kind === "register" && status === 202,
  )) {
    expect((await settledJob(creator, body.job_id, 60_000)).body.status).toBe("completed");
  }

  // …and the executions refused while NATS was frozen were never run.
  const refused = await stack().db.select().from(runs).where(eq(runs.failure, RUN_NOT_HANDED_OVER));
  expect(refused.length).toBeGreaterThan(0);
  expect(refused.map((run) => ({ started: run.startedAt, calls: agent.callsOf(run.id) }))).toEqual(
    refused.map(() => ({ started: null, calls: 0 })),
  );

  // No restart, and no connection kept past the pool's.
  expect(await Promise.race([apiExited, sleep(0).then(() => false)])).toBe(false);
  await until(
    "the API's connections to be its pool's at most",
    async () => {
      const [row] = await stack().db.execute<{ count: number }>(sql`
        select count(*)::int as count from pg_stat_activity where application_name like 'api %'`);
      return row !== undefined && row.count <= DATABASE_CONNECTIONS;
    },
    // A backend whose client left during the freeze goes once Postgres reads the close, which a
    // loaded machine delays; a connection kept past the pool's would stay.
    30_000,
  );
}, 240_000);
