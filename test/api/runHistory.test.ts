// Asynchronous runs and run history on the real stack (API, a worker process settling on anvil,
// Ponder indexing, a connected agent listed per task): POST /v1/runs answers at once and its run is
// charged once; GET /v1/runs pages a renter's runs by cursor while new ones arrive; the creator's
// view shows every renter's runs of its listing, never an input or output, with daily totals.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { ServiceClient } from "../../sdk/src/index.ts";
import { runEvents, settledRuns } from "../settlement/settlementFixtures.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";
import { insertPastRuns, type PastRun } from "../support/runs.ts";

const PRICE = parseEther("0.001");
const PAST_RUNS = 250;
/** Words of the past runs' tasks and outputs that no list may show. */
const PAST_TASK = "task-words-no-list-shows";
const PAST_OUTPUT = "output-words-no-list-shows";
const MINUTE_MS = 60_000;

const { stack, listing, addRenter } = usePerTaskAgentOnStack({
  name: "run-history",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});
/** The listing's creator (`listPerTaskAgent` lists as this account). */
const creator = devAccount(2);
let alice: Renter;
let bob: Renter;
let alicePast: string[];
let bobPast: string[];
let creatorApi: ReturnType<typeof http>;

const ITEM_KEYS = ["agent_id", "cost_wei", "created_at", "duration_ms", "run_id", "status"];

/** 250 of Alice's runs ended over the last ~42 hours, one in five failed, two by two at one time. */
function pastRuns(wallet: string, count: number, now: number): PastRun[] {
  return Array.from({ length: count }, (_, n) => ({
    wallet,
    listing: listing().listingId,
    // Pairs share a created_at: the id breaks the tie.
    createdAt: new Date(now - 10 * MINUTE_MS * (Math.floor(n / 2) + 1)),
    status: n % 5 === 0 ? "failed" : "completed",
    task: PAST_TASK,
    output: PAST_OUTPUT,
  }));
}

beforeAll(async () => {
  alice = await addRenter(PRICE * 10n);
  bob = await addRenter(PRICE * 10n);
  const now = Date.now();
  alicePast = await insertPastRuns(stack().db, pastRuns(alice.account.address, PAST_RUNS, now));
  bobPast = await insertPastRuns(stack().db, pastRuns(bob.account.address, 7, now - 1_000));
  creatorApi = http(stack().api.url, { bearer: await signIn(stack().api.url, creator) });
});

/** Waits for a run's answer to be final through its `Location`. */
function finalRun(api: Renter["api"], location: string) {
  return until(`${location} to be final`, async () => {
    const reply = await api.get(location);
    expect(reply.status).toBe(200);
    return ["completed", "failed"].includes(reply.body.status) && reply.body;
  });
}

describe("POST /v1/runs", () => {
  it("answers 202 at once with a Location, and the run completes, charged once; a retry is the same run", async () => {
    const body = { agent_id: listing().agentId, task: behaving({ delayMs: 500 }) };
    const headers = { "idempotency-key": "async-run-1" };
    const accepted = await alice.api.post("/v1/runs", body, { headers });
    expect(accepted.status).toBe(202);
    expect(Object.keys(accepted.body).sort()).toEqual(["run_id", "status"]);
    expect(["waiting", "queued", "running"]).toContain(accepted.body.status);
    const location = accepted.headers.get("location");
    expect(location).toBe(`/v1/runs/${accepted.body.run_id}`);

    const retried = await alice.api.post("/v1/runs", body, { headers });
    expect(retried.status).toBe(202);
    expect(retried.body.run_id).toBe(accepted.body.run_id);
    expect(retried.headers.get("location")).toBe(location);

    const result = await finalRun(alice.api, location ?? "");
    expect(result).toMatchObject({
      run_id: accepted.body.run_id,
      status: "completed",
      output: { summary: "done" },
      cost_wei: Number(PRICE),
    });
    const [row] = await settledRuns(stack(), [accepted.body.run_id]);
    expect(row).toMatchObject({ charge: "debited", costWei: PRICE.toString() });
    const debits = await runEvents(stack(), "QueryConsumed", [BigInt(row?.onChainRunId ?? 0)]);
    expect(debits.map((debit) => debit.args.price)).toEqual([PRICE]);
    // The same run once more under its key, after it ended: still that run, charged once.
    const late = await alice.api.post("/v1/runs", body, { headers });
    expect(late.body).toEqual({ run_id: accepted.body.run_id, status: "completed" });

    // The SDK: create, then get the result.
    const client = new ServiceClient({ baseUrl: stack().api.url, token: alice.bearer });
    const created = await client.runs.create({ agent_id: listing().agentId, task: behaving() });
    const sdkResult = await until("the SDK's run to be final", async () => {
      const run = await client.runs.get(created.run_id);
      return (run.status === "completed" || run.status === "failed") && run;
    });
    expect(sdkResult).toMatchObject({ status: "completed", cost_wei: PRICE });
  });

  it("refuses what POST /v1/execute refuses, before any run", async () => {
    expectError(await alice.api.post("/v1/runs", { task: "no agent" }), 400, "invalid_request");
    const stranger = http(stack().api.url, {
      bearer: await signIn(stack().api.url, devAccount(7)),
    });
    const refused = await stranger.post("/v1/runs", { agent_id: listing().agentId, task: "x" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("credential_not_found");
  });
});

describe("GET /v1/runs", () => {
  it("pages through 250 runs by cursor, newest first, with no duplicate or gap while new runs arrive", async () => {
    const seen: { run_id: string; created_at: string }[] = [];
    let cursor: string | null = null;
    let arrivals = 0;
    do {
      const query: string = cursor ? `limit=37&cursor=${cursor}` : "limit=37";
      const page = await alice.api.get(`/v1/runs?${query}`);
      expect(page.status).toBe(200);
      for (const item of page.body.runs) {
        expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
        seen.push(item);
      }
      cursor = page.body.next_cursor;
      // New runs arrive while the renter pages: through the API, and at this very moment.
      if (cursor && arrivals < 3) {
        arrivals++;
        const arrived = await alice.api.post("/v1/runs", {
          agent_id: listing().agentId,
          task: behaving(),
        });
        expect(arrived.status).toBe(202);
        const [now] = pastRuns(alice.account.address, 1, Date.now());
        if (now) await insertPastRuns(stack().db, [{ ...now, createdAt: new Date() }]);
      }
    } while (cursor);

    const ids = seen.map((item) => item.run_id);
    expect(new Set(ids).size, "a run listed twice").toBe(ids.length);
    const listed = new Set(ids);
    expect(
      alicePast.filter((id) => !listed.has(id)),
      "past runs skipped",
    ).toEqual([]);
    expect(
      ids.some((id) => bobPast.includes(id)),
      "another renter's runs",
    ).toBe(false);
    const times = seen.map((item) => Date.parse(item.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    // The SDK iterates the same runs, every page.
    const client = new ServiceClient({ baseUrl: stack().api.url, token: alice.bearer });
    const iterated: string[] = [];
    for await (const run of client.runs.list({ limit: 100 })) iterated.push(run.run_id);
    expect(new Set(iterated).size).toBe(iterated.length);
    expect(alicePast.every((id) => iterated.includes(id))).toBe(true);
    expect(iterated.length).toBeGreaterThanOrEqual(PAST_RUNS + arrivals);
  });

  it("shows a renter its own runs only, filtered by agent, status and time", async () => {
    const bobs = await bob.api.get("/v1/runs?limit=100");
    expect(bobs.body.runs.map((run: { run_id: string }) => run.run_id).sort()).toEqual(
      [...bobPast].sort(),
    );
    expect(bobs.body.next_cursor).toBeNull();
    expectError(await bob.api.get(`/v1/runs/${alicePast[0]}`), 404, "run_not_found");

    const failed = await bob.api.get("/v1/runs?status=failed");
    expect(failed.body.runs.every((run: { status: string }) => run.status === "failed")).toBe(true);
    expect(failed.body.runs).toHaveLength(2);
    const other = `lst_${"0".repeat(64)}`;
    expect((await bob.api.get(`/v1/runs?agent_id=${other}`)).body).toEqual({
      runs: [],
      next_cursor: null,
    });
    const since = new Date(Date.now() - 25 * MINUTE_MS).toISOString();
    const recent = await bob.api.get(`/v1/runs?since=${since}`);
    // Bob's runs are 10, 10, 20, 20, 30, 30 and 40 minutes old (and a second).
    expect(recent.body.runs).toHaveLength(4);
    const until = new Date(Date.now() - 25 * MINUTE_MS).toISOString();
    expect((await bob.api.get(`/v1/runs?until=${until}`)).body.runs).toHaveLength(3);
  });
});

describe("GET /v1/creators/me/runs", () => {
  it("lists every renter's runs of the creator's listing, never an input or output, with daily totals that match them", async () => {
    const seen: { run_id: string; created_at: string; status: string }[] = [];
    let cursor: string | null = null;
    const bearer = await signIn(stack().api.url, creator);
    do {
      const response = await fetch(
        `${stack().api.url}/v1/creators/me/runs?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
        { headers: { authorization: `Bearer ${bearer}` } },
      );
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).not.toContain(PAST_TASK);
      expect(text).not.toContain(PAST_OUTPUT);
      expect(text).not.toContain("summary");
      const page = JSON.parse(text);
      for (const item of page.runs) {
        expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
        seen.push(item);
      }
      cursor = page.next_cursor;
    } while (cursor);
    const ids = new Set(seen.map((item) => item.run_id));
    expect(ids.size).toBe(seen.length);
    for (const id of [...alicePast, ...bobPast]) expect(ids.has(id)).toBe(true);

    // The daily totals of the last 30 days, checked against the runs listed and the chain's debits.
    const { daily } = await until("every debit to be indexed in the daily totals", async () => {
      const reply = await creatorApi.get("/v1/creators/me/runs?limit=1");
      const earned = reply.body.daily.reduce(
        (total: bigint, day: { earned_wei: string }) => total + BigInt(day.earned_wei),
        0n,
      );
      return earned === (await creatorShareOfDebits()) && reply.body;
    });
    expect(daily).toHaveLength(31);
    expect(daily.map((day: { date: string }) => day.date)).toEqual(
      [...daily.map((day: { date: string }) => day.date)].sort(),
    );
    expect(daily.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    for (const day of daily) {
      const ofDay = seen.filter((item) => item.created_at.slice(0, 10) === day.date);
      expect({ date: day.date, runs: day.runs, failures: day.failures }).toEqual({
        date: day.date,
        runs: ofDay.length,
        failures: ofDay.filter((item) => item.status === "failed").length,
      });
    }

    // Another wallet, creator of nothing, sees none of them.
    const stranger = await bob.api.get("/v1/creators/me/runs");
    expect(stranger.body.runs).toEqual([]);
    expect(stranger.body.daily.every((day: { runs: number }) => day.runs === 0)).toBe(true);
  });
});

/** The creator's share of every debit of the listing on-chain: each price less its fee. */
async function creatorShareOfDebits(): Promise<bigint> {
  const logs = await stack().marketplace.publicClient.getContractEvents({
    address: stack().deployment.address,
    abi: serviceMarketplaceAbi,
    eventName: "QueryConsumed",
    args: { listingId: listing().listingId },
    fromBlock: BigInt(stack().deployment.startBlock),
    toBlock: "latest",
    strict: true,
  });
  return logs.reduce((total, log) => total + log.args.price - log.args.fee, 0n);
}

describe("bad queries", () => {
  const cases: [string, string][] = [
    ["limit", "limit=0"],
    ["limit", "limit=101"],
    ["limit", "limit=ten"],
    ["status", "status=done"],
    ["since", "since=yesterday"],
    ["until", "until=2026-13-01"],
    ["since", "since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z"],
    ["cursor", "cursor=not-a-cursor"],
    ["cursor", `cursor=${Buffer.from("1.run_x").toString("base64url")}`],
    [
      "cursor",
      `cursor=${Buffer.from(`${"9".repeat(19)}.run_${"0".repeat(24)}`).toString("base64url")}`,
    ],
    ["agent_id", "agent_id=nope"],
  ];
  it.each(cases)("answers 400 invalid_request naming %s for ?%s", async (parameter, query) => {
    for (const path of ["/v1/runs", "/v1/creators/me/runs"]) {
      const reply = await alice.api.get(`${path}?${query}`);
      expectError(reply, 400, "invalid_request");
      expect(reply.body.error.message).toContain(parameter);
    }
  });

  it("refuses a creator's window longer than 366 days", async () => {
    const reply = await creatorApi.get(
      "/v1/creators/me/runs?since=2025-01-01T00:00:00Z&until=2026-06-01T00:00:00Z",
    );
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error.message).toContain("since");
  });
});
