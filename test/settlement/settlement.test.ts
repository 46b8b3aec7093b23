// Settlement on the real stack: a worker process debits per-task runs exactly once, in batches, and
// anchors every finished run's receipt, its anchor counting each run no debit counted once; a refused
// debit is counted uncharged; an unreachable chain changes nothing. The worker reaches the chain
// through a proxy that can fail its requests.
import { inArray } from "drizzle-orm";
import { type Hex, parseEther, toFunctionSelector } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Bus } from "../../lib/bus/bus.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { anchors } from "../../lib/db/appSchema.ts";
import { projections } from "../../lib/db/projections.ts";
import { newRunId } from "../../lib/ids/randomIds.ts";
import {
  decodeNotice,
  encodeNotice,
  runTopic,
  SETTLEMENT_TOPIC,
} from "../../lib/runLedger/notices.ts";
import {
  type CountingRpcProxy,
  EVERY_METHOD,
  startCountingRpcProxy,
} from "../support/countingRpcProxy.ts";
import { until } from "../support/registration.ts";
import { settlementFailedTwice } from "../support/settlementRetries.ts";
import { useStack } from "../support/useStack.ts";
import {
  anchoredCounts,
  anchoredRuns,
  anchorLogs,
  balanceOf,
  debitPendingRun,
  insertDebitPendingRuns,
  insertFinishedRuns,
  newListing,
  perTaskRenters,
  runEvents,
  runRow,
  runRows,
  settlementLeader,
} from "./settlementFixtures.ts";

const PRICE = parseEther("0.001");
const output: string[] = [];
const stack = useStack({
  chain: true,
  postgres: true,
  ponder: true,
  nats: true,
  onOutput: (line) => output.push(line),
});
let proxy: CountingRpcProxy;
let bus: Bus;

beforeAll(async () => {
  proxy = await startCountingRpcProxy(stack().anvil.rpcUrl);
  await stack().addWorker({ RPC_URL: proxy.url });
  bus = await createJetStreamBus(stack().nats.natsUrl);
  await until("a settlement leader", () => settlementLeader(stack()));
});

afterEach(() => {
  proxy.restore();
});

afterAll(async () => {
  await bus?.close();
  await proxy?.close();
});

const NOTHING_COUNTED = { runs: 0, failed: 0 };
const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);
const wake = () => bus.notify(SETTLEMENT_TOPIC, encodeNotice({ kind: "changed" }));

/** Waits for the leader's second failure in a row on the chain since output line `from`. */
const leaderFailedTwice = (from: number) =>
  until("the leader to fail on the chain twice in a row", () =>
    settlementFailedTwice(output.slice(from).join("")),
  );

/** Every `changed` notice on these runs' topics from now on, by run id. */
function listenForChanges(ids: string[]) {
  const heard = new Map<string, number>();
  const subscriptions = ids.map((id) =>
    bus.listen(runTopic(id), (data) => {
      if (decodeNotice(data).kind === "changed") heard.set(id, (heard.get(id) ?? 0) + 1);
    }),
  );
  return {
    heard,
    stop: () => Promise.all(subscriptions.map((subscription) => subscription.stop())),
  };
}

describe("settlement debits per-task runs exactly once", () => {
  it("debits 100 runs of 5 wallets in batches: Σ cost = Σ on-chain prices = balances' decrease", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const renters = await perTaskRenters(stack(), listing, 5, PRICE * 30n);
    const balances = () =>
      Promise.all(renters.map((renter) => balanceOf(stack(), listing.listingId, renter.address)));
    const before = await balances();
    const ids = Array.from({ length: 100 }, () => newRunId());
    const changes = listenForChanges(ids);
    const inserted = await insertFinishedRuns(
      stack(),
      ids.map((id, i) => debitPendingRun(listing, renters[i % renters.length]?.address as Hex, id)),
    );
    wake();

    const rows = await until("100 runs debited", async () => {
      const rows = await runRows(stack(), ids);
      return rows.every((row) => row.charge === "debited") && rows;
    });
    await until("a change notice for every run", () => changes.heard.size === ids.length);
    await changes.stop();

    const consumed = await runEvents(
      stack(),
      "QueryConsumed",
      inserted.map(({ onChainRunId }) => onChainRunId),
    );
    const after = await balances();
    const costs = rows.map((row) => BigInt(row.costWei));
    expect(consumed).toHaveLength(100);
    expect(new Set(consumed.map((log) => log.args.runId)).size).toBe(100);
    expect(sum(costs)).toBe(100n * PRICE);
    expect(sum(consumed.map((log) => log.args.price))).toBe(sum(costs));
    expect(sum(before) - sum(after)).toBe(sum(costs));
    for (const row of rows) {
      const debit = consumed.find((log) => log.args.runId === BigInt(row.onChainRunId));
      expect(row).toMatchObject({
        costWei: debit?.args.price.toString(),
        debitTx: debit?.transactionHash,
        debitBlock: debit?.blockNumber,
        logged: true,
      });
    }
    // Batched: a handful of transactions, not one per run.
    const transactions = new Set(rows.map((row) => row.debitTx));
    expect(transactions.size).toBeGreaterThanOrEqual(2);
    expect(transactions.size).toBeLessThanOrEqual(10);
    // Their receipts are anchored, but no anchor counts a debited run a second time.
    await anchoredRuns(stack(), ids);
    expect(await anchoredCounts(stack(), listing.listingId)).toEqual(NOTHING_COUNTED);
  });

  it("refuses, uncharged, a run whose renter was revoked mid-run, debits the rest of its batch, and counts it in an anchor", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const [revoked, kept] = await perTaskRenters(stack(), listing, 2, PRICE * 5n);
    if (!revoked || !kept) throw new Error("two renters expected");
    await stack().marketplace.mined(
      stack()
        .marketplace.as(listing.creator)
        .write.revokePerQueryAccess([listing.listingId, revoked.address]),
    );
    const [refusedRun, debitedRun] = await insertFinishedRuns(
      stack(),
      [revoked, kept].map((renter) => debitPendingRun(listing, renter.address)),
    );
    if (!refusedRun || !debitedRun) throw new Error("two runs expected");
    wake();

    const [refused] = await anchoredRuns(stack(), [refusedRun.id]);
    expect(refused).toMatchObject({ charge: "refused", costWei: "0", logged: true });
    expect((await runRow(stack(), debitedRun.id)).charge).toBe("debited");
    expect(await balanceOf(stack(), listing.listingId, revoked.address)).toBe(PRICE * 5n);
    expect(await balanceOf(stack(), listing.listingId, kept.address)).toBe(PRICE * 4n);

    const [skip, ...moreSkips] = await runEvents(stack(), "QueryNotConsumed", [
      refusedRun.onChainRunId,
    ]);
    expect(moreSkips).toEqual([]);
    expect(skip?.args.reason).toBe(toFunctionSelector("CredentialRevoked(bytes32,address)"));
    expect(await runEvents(stack(), "QueryConsumed", [refusedRun.onChainRunId])).toEqual([]);
    // Counted once, as a success, by an anchor; the debited run by its debit alone.
    await anchoredRuns(stack(), [debitedRun.id]);
    expect(await anchoredCounts(stack(), listing.listingId)).toEqual({ runs: 1, failed: 0 });
  });
});

describe("settlement anchors every finished run's receipt, counting each uncharged run once", () => {
  it("counts one-time and failed runs exactly once, even when an anchor is confirmed or sent again; Ponder counts them", async () => {
    const oneTime = await newListing(stack(), "one_time", PRICE);
    const perTask = await newListing(stack(), "per_query", PRICE);
    const [renter] = await perTaskRenters(stack(), perTask, 1, PRICE * 5n);
    if (!renter) throw new Error("a renter expected");
    await stack().marketplace.mined(
      stack().marketplace.as(renter).write.purchaseOneTime([oneTime.listingId], { value: PRICE }),
    );
    const run = (listing: typeof oneTime, status: "completed" | "failed", charge: "none") => ({
      wallet: renter.address,
      listingId: listing.listingId,
      rentalModel: listing.model,
      status,
      charge,
    });
    const inserted = await insertFinishedRuns(stack(), [
      run(oneTime, "completed", "none"),
      run(oneTime, "failed", "none"),
      run(oneTime, "completed", "none"),
      { ...run(perTask, "failed", "none"), charge: "released" as const, reservedWei: PRICE },
      {
        ...run(perTask, "completed", "none"),
        charge: "debit_pending" as const,
        reservedWei: PRICE,
      },
    ]);
    const ids = inserted.map(({ id }) => id);
    wake();
    const rows = await anchoredRuns(stack(), ids);
    expect(rows.every((row) => row.logged)).toBe(true);
    const roots = [...new Set(rows.map((row) => row.anchorRoot as Hex))];
    const expected = {
      oneTime: { runs: 3, failed: 1 },
      // The released failure by an anchor; the debited run by its debit.
      perTask: { runs: 1, failed: 1 },
    };
    const countedNow = async () => ({
      oneTime: await anchoredCounts(stack(), oneTime.listingId),
      perTask: await anchoredCounts(stack(), perTask.listingId),
    });
    expect(await countedNow()).toEqual(expected);
    const anchored = await stack().db.select().from(anchors).where(inArray(anchors.root, roots));

    // As after a crash between sending the anchors and marking them: read back, never counted again.
    await stack().db.update(anchors).set({ status: "pending" }).where(inArray(anchors.root, roots));
    wake();
    const confirmed = await until("the anchors confirmed again", async () => {
      const rows = await stack().db.select().from(anchors).where(inArray(anchors.root, roots));
      return rows.every((row) => row.status === "anchored") && rows;
    });
    const sorted = <T extends { root: string }>(rows: T[]) =>
      [...rows].sort((a, b) => a.root.localeCompare(b.root));
    expect(sorted(confirmed)).toEqual(sorted(anchored));
    // Sent again by hand, as a resend after a lost receipt would be: the contract skips them.
    for (const { root, counts } of anchored) {
      await stack().marketplace.mined(
        stack()
          .marketplace.as(devAccount(0))
          .write.settle([[], root as Hex, counts]),
      );
    }

    const logs = await anchorLogs(stack(), roots);
    expect(logs.map((log) => log.args.root).sort()).toEqual([...roots].sort());
    expect(await countedNow()).toEqual(expected);
    const latest = await stack().marketplace.publicClient.getBlockNumber();
    await stack().ponder.waitForBlock(latest);
    const counts = await stack()
      .db.select({
        id: projections.listing.id,
        runCount: projections.listing.runCount,
        failedRunCount: projections.listing.failedRunCount,
      })
      .from(projections.listing);
    expect(counts).toEqual(
      expect.arrayContaining([
        { id: oneTime.listingId.toLowerCase(), runCount: 3, failedRunCount: 1 },
        { id: perTask.listingId.toLowerCase(), runCount: 2, failedRunCount: 1 },
      ]),
    );
  });
});

describe("settlement while the chain fails", () => {
  it("changes nothing while the chain is unreachable, then settles everything once it answers", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const renters = await perTaskRenters(stack(), listing, 2, PRICE * 10n);
    proxy.fail(EVERY_METHOD);
    const inserted = await insertFinishedRuns(
      stack(),
      Array.from({ length: 10 }, (_, i) => {
        const run = debitPendingRun(listing, renters[i % 2]?.address as Hex);
        return i === 9 ? { ...run, status: "failed" as const, charge: "released" as const } : run;
      }),
    );
    const ids = inserted.map(({ id }) => id);
    const heardBefore = output.length;
    wake();
    await leaderFailedTwice(heardBefore);

    const rows = await runRows(stack(), ids);
    for (const row of rows) {
      expect(row).toMatchObject({ debitTx: null, costWei: "0" });
      if (row.charge === "debit_pending") {
        expect(row).toMatchObject({ logged: false, anchorRoot: null });
      } else {
        // Its cost is final: it may be assigned to an anchor, one the chain cannot have seen.
        expect(row.charge).toBe("released");
        expect(row.logged).toBe(row.anchorRoot !== null);
      }
    }
    const roots = rows.flatMap((row) => (row.anchorRoot === null ? [] : [row.anchorRoot]));
    const assigned = await stack().db.select().from(anchors).where(inArray(anchors.root, roots));
    expect(assigned.map((anchor) => anchor.status)).toEqual(roots.map(() => "pending"));
    const onChainRunIds = inserted.map(({ onChainRunId }) => onChainRunId);
    expect(await runEvents(stack(), "QueryConsumed", onChainRunIds)).toEqual([]);
    expect(await anchoredCounts(stack(), listing.listingId)).toEqual(NOTHING_COUNTED);

    proxy.restore();
    const settled = await anchoredRuns(stack(), ids);
    expect(settled.filter((row) => row.charge === "debited")).toHaveLength(9);
    expect(settled.every((row) => row.logged)).toBe(true);
    expect(await runEvents(stack(), "QueryConsumed", onChainRunIds)).toHaveLength(9);
    expect(await anchoredCounts(stack(), listing.listingId)).toEqual({ runs: 1, failed: 1 });
  });

  it("reads back a debit batch whose receipt was lost instead of sending it again", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const [renter] = await perTaskRenters(stack(), listing, 1, PRICE * 10n);
    if (!renter) throw new Error("a renter expected");
    proxy.fail("eth_getTransactionReceipt");
    const { ids, onChainRunIds } = await insertDebitPendingRuns(stack(), listing, [renter], 5);
    const heardBefore = output.length;
    wake();
    // Sent and mined, but the leader cannot read its receipt.
    const consumed = await until("the debits mined", async () => {
      const logs = await runEvents(stack(), "QueryConsumed", onChainRunIds);
      return logs.length === 5 && logs;
    });
    await leaderFailedTwice(heardBefore);
    const waiting = await runRows(stack(), ids);
    const sent = new Set(consumed.map((log) => log.transactionHash));
    expect(sent.size).toBe(1);
    for (const row of waiting) {
      expect(row).toMatchObject({ charge: "debit_pending", debitTx: [...sent][0] });
    }

    proxy.restore();
    const rows = await until("the runs debited from the receipt", async () => {
      const rows = await runRows(stack(), ids);
      return rows.every((row) => row.charge === "debited") && rows;
    });
    expect(await runEvents(stack(), "QueryConsumed", onChainRunIds)).toHaveLength(5);
    expect(sum(rows.map((row) => BigInt(row.costWei)))).toBe(5n * PRICE);
    expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(5n * PRICE);
  });

  it("sends again, once, a debit batch recorded but never broadcast", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const [renter] = await perTaskRenters(stack(), listing, 1, PRICE * 10n);
    if (!renter) throw new Error("a renter expected");
    proxy.fail("eth_sendRawTransaction");
    const { ids, onChainRunIds } = await insertDebitPendingRuns(stack(), listing, [renter], 3);
    wake();
    const recorded = await until("the batch recorded before it is sent", async () => {
      const rows = await runRows(stack(), ids);
      return rows.every((row) => row.debitTx !== null) && rows;
    });
    expect(await runEvents(stack(), "QueryConsumed", onChainRunIds)).toEqual([]);
    expect(new Set(recorded.map((row) => row.charge))).toEqual(new Set(["debit_pending"]));

    proxy.restore();
    const rows = await until("the runs debited", async () => {
      const rows = await runRows(stack(), ids);
      return rows.every((row) => row.charge === "debited") && rows;
    });
    const consumed = await runEvents(stack(), "QueryConsumed", onChainRunIds);
    expect(consumed).toHaveLength(3);
    for (const row of rows) {
      expect(row.debitTx).toBe(
        consumed.find((log) => log.args.runId === BigInt(row.onChainRunId))?.transactionHash,
      );
    }
    expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(7n * PRICE);
  });
});

describe("the operator's key", () => {
  it("stops a settling process whose key is neither the operator nor the authority", async () => {
    const heardBefore = output.length;
    await expect(
      stack().addWorker({ OPERATOR_PRIVATE_KEY: `0x${"5a".repeat(32)}` }),
    ).rejects.toThrow("the worker exited before it started");
    // Its exit may be heard before the last of what it printed.
    await until("the worker's reason", () =>
      /OPERATOR_PRIVATE_KEY signs as 0x[0-9a-fA-F]{40}, which is neither the operator \(0x[0-9a-fA-F]{40}\) nor the authority/.test(
        output.slice(heardBefore).join(""),
      ),
    );
  });
});
