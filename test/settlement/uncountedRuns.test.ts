// Finding: a creator renting its own listing could buy it run_count and success_rate with runs of its
// own, fill the database with 1 MB answers kept forever, and a run refused before it started (no slot
// freed) was logged on-chain as the agent's failure.
// On the real stack (API, a worker process settling on anvil, Ponder indexing, a connected agent):
// the creator's runs are debited like anyone's but counted nowhere (a failure charged because it
// streamed output included), its other failures and refused runs are anchored with every receipt but
// counted by no anchor, and another renter's runs are counted as before; its answers are kept only in
// part.
import { createHash } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { parseEther } from "viem";
import { beforeAll, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { dropOldOutputs } from "../../lib/runLedger/dropOldOutputs.ts";
import { RUNS_IN_FLIGHT_PER_LISTING } from "../../lib/runLedger/grantSlots.ts";
import { RUN_NOT_STARTED } from "../../lib/runLedger/runNotStarted.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { indexedFigures } from "../support/listingFigures.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";
import { anchoredCounts, anchoredRuns, runEvents } from "./settlementFixtures.ts";

const PRICE = parseEther("0.001");
const STORE_BYTES = 64 * 1024;
/** Long enough for the slots these runs hold to outlast the queue wait of a run behind them. */
const SLOW_MS = 8_000;
const { stack, listing, addRenter } = usePerTaskAgentOnStack({
  name: "self-dealing",
  price: PRICE,
  // A run no slot frees for is refused after a second, not thirty; a row keeps 64 KB of output.
  env: { RUN_QUEUE_WAIT_MS: "1000", RUN_OUTPUT_STORE_BYTES: String(STORE_BYTES) },
  startProcesses: () => stack().addWorker(),
});
/** The listing's creator (`listPerTaskAgent` lists as dev account 2), renting its own listing. */
const creator = devAccount(2);
let creatorApi: ReturnType<typeof http>;
let renter: Renter;

beforeAll(async () => {
  const market = stack().marketplace;
  await market.mined(
    market.as(creator).write.purchasePerQuery([listing().listingId, PRICE], { value: PRICE * 40n }),
  );
  creatorApi = http(stack().api.url, { bearer: await signIn(stack().api.url, creator) });
  renter = await addRenter(PRICE * 10n);
});

const execute = (api: ReturnType<typeof http>, task: string) =>
  api.post("/v1/execute", { agent_id: listing().agentId, task });

/** Waits until these runs are settled and their receipts anchored on-chain; returns their rows. */
const settled = (ids: string[]) => anchoredRuns(stack(), ids);
/** The listing's figures, indexed and as its detail shows them. */
const figures = () => indexedFigures(stack(), listing(), renter.api);

/** What the chain's anchors counted for the listing so far. */
const counted = () => anchoredCounts(stack(), listing().listingId);

it("counts none of a creator's runs of its own listing, and another renter's as before", async () => {
  expect(await figures()).toEqual({ run_count: 0, success_rate: 0 });

  const own = [
    await execute(creatorApi, behaving()),
    await execute(creatorApi, behaving({ status: 500 })),
    // Streams, then answers off its schema: failed, but its output reached the renter.
    await execute(creatorApi, behaving({ deltas: ["some ", "text"], output: { summary: 42 } })),
  ];
  expect(own.map((reply) => [reply.status, reply.body.status])).toEqual([
    [200, "completed"],
    [200, "failed"],
    [200, "failed"],
  ]);
  const [completed, failed, chargedFailure] = await settled(
    own.map((reply) => reply.body.run_id),
  ).then((rows) => own.map((reply) => rows.find((row) => row.id === reply.body.run_id)));
  // Paid for like any run (the creator pays the protocol's fee), so the debits stay on-chain...
  expect(completed).toMatchObject({ charge: "debited", costWei: PRICE.toString() });
  expect(chargedFailure).toMatchObject({ charge: "debited", costWei: PRICE.toString() });
  const debits = await runEvents(stack(), "QueryConsumed", [
    BigInt(completed?.onChainRunId ?? 0),
    BigInt(chargedFailure?.onChainRunId ?? 0),
  ]);
  expect(debits.map((log) => log.args.succeeded).sort()).toEqual([false, true]);
  // ...and the failure's receipt is anchored like any, but no anchor counts it.
  expect(failed).toMatchObject({ status: "failed", charge: "released", logged: true });
  expect(failed?.anchorRoot).not.toBeNull();
  expect(await counted()).toEqual({ runs: 0, failed: 0 });
  expect(await figures()).toEqual({ run_count: 0, success_rate: 0 });

  const theirs = [
    await execute(renter.api, behaving()),
    await execute(renter.api, behaving({ status: 500 })),
  ];
  expect(theirs.map((reply) => reply.body.status)).toEqual(["completed", "failed"]);
  const [theirSuccess, theirFailure] = await settled(theirs.map((reply) => reply.body.run_id)).then(
    (rows) => theirs.map((reply) => rows.find((row) => row.id === reply.body.run_id)),
  );
  expect(theirSuccess).toMatchObject({ charge: "debited" });
  // Their released failure is counted once by an anchor; their success by its debit.
  expect(theirFailure).toMatchObject({ status: "failed", charge: "released" });
  expect(await counted()).toEqual({ runs: 1, failed: 1 });
  expect(await figures()).toEqual({ run_count: 2, success_rate: 0.5 });
});

it("counts a run refused before it started (no slot freed) as no failure, in no anchor", async () => {
  const before = await figures();
  const countedBefore = await counted();
  // The creator's slow runs hold every slot of the listing.
  const holding = Array.from({ length: RUNS_IN_FLIGHT_PER_LISTING }, () =>
    execute(creatorApi, behaving({ delayMs: SLOW_MS })),
  );
  await until("every slot of the listing held", async () => {
    const held = await stack()
      .db.select({ id: runs.id })
      .from(runs)
      .where(
        and(
          eq(runs.onChainListingId, listing().listingId.toLowerCase()),
          inArray(runs.status, ["queued", "running"]),
        ),
      );
    return held.length === RUNS_IN_FLIGHT_PER_LISTING;
  });

  expectError(await execute(renter.api, behaving()), 503, "service_unavailable");
  const [refused] = await stack()
    .db.select()
    .from(runs)
    .where(
      and(eq(runs.wallet, renter.account.address.toLowerCase()), eq(runs.failure, RUN_NOT_STARTED)),
    );
  expect(refused).toMatchObject({ status: "failed", charge: "released" });

  const held = await Promise.all(holding);
  expect(held.map((reply) => reply.body.status)).toEqual(
    Array(RUNS_IN_FLIGHT_PER_LISTING).fill("completed"),
  );
  const rows = await settled([
    refused?.id as string,
    ...held.map((reply) => reply.body.run_id as string),
  ]);
  // Their receipts are anchored, the refused run's too, but no anchor counts any of them.
  expect(rows.every((row) => row.anchorRoot !== null)).toBe(true);
  expect(await counted()).toEqual(countedBefore);
  expect(await figures()).toEqual(before);
  expect(before).toEqual({ run_count: 2, success_rate: 0.5 });
});

it("stores at most RUN_OUTPUT_STORE_BYTES of a creator's 1 MB answers, delivered whole", async () => {
  const before = await figures();
  const bytes = 1_000_000;
  const replies = await Promise.all(
    Array.from({ length: 3 }, () => execute(creatorApi, behaving({ bytes }))),
  );
  for (const reply of replies) {
    expect(reply.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
    expect(JSON.stringify({ output: reply.body.output })).toHaveLength(bytes);
  }
  const ids = replies.map((reply) => reply.body.run_id as string);
  const stored = await stack()
    .db.select({
      id: runs.id,
      bytes: sql<number>`octet_length(${runs.output}::text)`,
      sha256: runs.outputSha256,
      truncated: runs.outputTruncated,
    })
    .from(runs)
    .where(inArray(runs.id, ids));
  for (const reply of replies) {
    const row = stored.find(({ id }) => id === reply.body.run_id);
    expect(row?.bytes).toBeLessThanOrEqual(STORE_BYTES);
    expect(row).toMatchObject({
      truncated: true,
      sha256: createHash("sha256").update(JSON.stringify(reply.body.output)).digest("hex"),
    });
    // Read again later, the run shows its kept copy and says so.
    const kept = (await creatorApi.get(`/v1/runs/${reply.body.run_id}`)).body;
    expect(kept).toMatchObject({ output_truncated: true, output_sha256: row?.sha256 });
    expect(reply.body.output.summary.startsWith(kept.output.slice('{"summary":"'.length))).toBe(
      true,
    );
  }
  await settled(ids);
  expect(await figures()).toEqual(before);
});

it("drops outputs past RUN_OUTPUT_RETENTION_DAYS, keeping each run's accounting", async () => {
  const [old, recent] = [
    await execute(renter.api, behaving()),
    await execute(renter.api, behaving()),
  ];
  await settled([old.body.run_id, recent.body.run_id]);
  // Fault injection: the first run finished 31 days ago.
  await stack()
    .db.update(runs)
    .set({ finishedAt: sql`now() - interval '31 days'` })
    .where(eq(runs.id, old.body.run_id));
  const accounting = (row: typeof runs.$inferSelect) => [row.status, row.charge, row.costWei];
  const [oldBefore] = await stack().db.select().from(runs).where(eq(runs.id, old.body.run_id));

  expect(await dropOldOutputs(stack().db, 30)).toBeGreaterThanOrEqual(1);
  const [oldAfter] = await stack().db.select().from(runs).where(eq(runs.id, old.body.run_id));
  const [recentAfter] = await stack().db.select().from(runs).where(eq(runs.id, recent.body.run_id));
  expect(oldAfter?.output).toBeNull();
  expect(accounting(oldAfter as typeof runs.$inferSelect)).toEqual(
    accounting(oldBefore as typeof runs.$inferSelect),
  );
  expect(oldAfter).toMatchObject({ charge: "debited", costWei: PRICE.toString() });
  expect(recentAfter?.output).toEqual({ summary: "done" });
});
