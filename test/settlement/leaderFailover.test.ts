// One settling process at a time across worker processes: the leader holds a Postgres session lock;
// killed (SIGKILL) in the middle of a batch, it loses the lock with its connection, a standby takes
// over, reads back the batch the dead leader sent, and no run is debited twice.
import { sql } from "drizzle-orm";
import { parseEther } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../../devStack/startStack.ts";
import { type CountingRpcProxy, startCountingRpcProxy } from "../support/countingRpcProxy.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";
import {
  balanceOf,
  insertDebitPendingRuns,
  newListing,
  perTaskRenters,
  runEvents,
  runRows,
  settlementLeader,
} from "./settlementFixtures.ts";

const PRICE = parseEther("0.001");
const RENTERS = 5;
const stack = useStack({ chain: true, postgres: true, nats: true, ponder: false });
let proxy: CountingRpcProxy;
let listing: Awaited<ReturnType<typeof newListing>>;
let renters: PrivateKeyAccount[];

beforeAll(async () => {
  proxy = await startCountingRpcProxy(stack().anvil.rpcUrl);
  listing = await newListing(stack(), "per_query", PRICE);
  renters = await perTaskRenters(stack(), listing, RENTERS, PRICE * 50n);
});

afterAll(async () => {
  await proxy?.close();
});

/** Settling processes connected to Postgres (each holds its leadership connection, leader or not). */
async function settlingProcesses(stack: Stack): Promise<number> {
  const [row] = await stack.db.execute<{ count: number }>(sql`
    select count(*)::int as count from pg_stat_activity where application_name like 'settlement %'`);
  return row?.count ?? 0;
}

const totalBalance = async () =>
  (
    await Promise.all(
      renters.map((renter) => balanceOf(stack(), listing.listingId, renter.address)),
    )
  ).reduce((sum, balance) => sum + balance, 0n);

/**
 * Waits until the `count` runs of `ids` are debited, then holds them to exactly once: one debit per
 * run id on-chain, `count` prices charged, all out of the renters' balances as they were `before`.
 */
async function expectDebitedOnce(
  count: number,
  { ids, onChainRunIds }: { ids: string[]; onChainRunIds: bigint[] },
  before: bigint,
) {
  const rows = await until(`${ids.length} runs debited`, async () => {
    const rows = await runRows(stack(), ids);
    return rows.every((row) => row.charge === "debited") && rows;
  });
  const consumed = await runEvents(stack(), "QueryConsumed", onChainRunIds);
  expect(consumed).toHaveLength(count);
  expect(new Set(consumed.map((log) => log.args.runId)).size).toBe(count);
  const costs = rows.reduce((sum, row) => sum + BigInt(row.costWei), 0n);
  expect(costs).toBe(BigInt(count) * PRICE);
  expect(before - (await totalBalance())).toBe(costs);
  return rows;
}

describe("settlement leadership", () => {
  it("lets one of two workers lead; killed mid-batch, the other takes over and debits nothing twice", async () => {
    const first = await stack().addWorker({ RPC_URL: proxy.url });
    const firstLeader = await until("the first worker to lead", () => settlementLeader(stack()));
    await stack().addWorker();
    await until("both workers connected", async () => (await settlingProcesses(stack())) === 2);
    expect(await settlementLeader(stack())).toBe(firstLeader);

    const before = await totalBalance();
    // The leader sends its batch, the chain mines it, and the leader never reads the receipt.
    proxy.fail("eth_getTransactionReceipt");
    const { ids, onChainRunIds } = await insertDebitPendingRuns(stack(), listing, renters, 100);
    const inFlight = await until("a batch sent and mined", async () => {
      const logs = await runEvents(stack(), "QueryConsumed", onChainRunIds);
      return logs.length > 0 && logs;
    });
    const inFlightTx = inFlight[0]?.transactionHash;
    expect(new Set(inFlight.map((log) => log.transactionHash))).toEqual(new Set([inFlightTx]));
    expect(await settlementLeader(stack())).toBe(firstLeader);

    first.kill("SIGKILL");
    await first.exited;
    proxy.restore();
    const secondLeader = await until("the standby to lead", async () => {
      const leader = await settlementLeader(stack());
      return leader !== firstLeader && leader;
    });
    expect(secondLeader).toMatch(/^settlement \d+$/);

    const rows = await expectDebitedOnce(100, { ids, onChainRunIds }, before);
    // The dead leader's batch was read back from its receipt, not sent again.
    const readBack = rows.filter((row) => row.debitTx === inFlightTx);
    expect(readBack.map((row) => row.onChainRunId).sort()).toEqual(
      inFlight.map((log) => log.args.runId.toString()).sort(),
    );
  });

  it("survives its leader killed at any point of a stream of batches", async () => {
    await stack().addWorker();
    await until(
      "a standby beside the leader",
      async () => (await settlingProcesses(stack())) === 2,
    );
    const leader = await settlementLeader(stack());
    const before = await totalBalance();
    const { ids, onChainRunIds } = await insertDebitPendingRuns(stack(), listing, renters, 150);
    await until("the first debits", async () => {
      const logs = await runEvents(stack(), "QueryConsumed", onChainRunIds);
      return logs.length > 0;
    });
    const leaderPid = Number(leader?.split(" ")[1]);
    process.kill(leaderPid, "SIGKILL");
    await until("another worker to lead", async () => {
      const next = await settlementLeader(stack());
      return next !== undefined && next !== leader;
    });

    await expectDebitedOnce(150, { ids, onChainRunIds }, before);
  });
});
