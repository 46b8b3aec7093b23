// Reconciling a debit batch the chain never received, on the real stack, through a node that refuses
// an `eth_getLogs` over more than 1,000 blocks as hosted providers do: the search for a run's debit
// starts at its first submission and goes in bounded steps, a debit of the same run id by another
// renter or listing is not this run's, a batch that cannot be reconciled is set aside, loudly,
// while the others are debited, a batch mined reverted (the protocol paused under it) is sent again
// once it can be, charging each run once, and a batch a reorg removes before its confirmations is
// sent again.
import { eq } from "drizzle-orm";
import { type Hex, parseEther, toHex } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import type { Worker } from "../../devStack/startWorker.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { runs } from "../../lib/db/appSchema.ts";
import {
  type CountingRpcProxy,
  LOG_RANGE_REFUSED,
  startCountingRpcProxy,
} from "../support/countingRpcProxy.ts";
import { perTaskLedger } from "../support/perTaskLedger.ts";
import { heardSince } from "../support/processOutput.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";
import {
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
const MAX_LOG_BLOCKS = 1_000;
const output: string[] = [];
const stack = useStack({
  chain: true,
  postgres: true,
  nats: true,
  ponder: false,
  onOutput: (line) => output.push(line),
});
let proxy: CountingRpcProxy;
let worker: Worker;

beforeAll(async () => {
  proxy = await startCountingRpcProxy(stack().anvil.rpcUrl, { maxLogBlocks: MAX_LOG_BLOCKS });
  worker = await stack().addWorker({
    RPC_URL: proxy.url,
    SETTLEMENT_RECONCILE_PATIENCE_MS: "3000",
  });
  await until("a settlement leader", () => settlementLeader(stack()));
});

afterEach(() => {
  proxy.restore();
});

afterAll(async () => {
  await proxy?.close();
});

/** Runs whose debit batch is recorded but never reaches the chain: the node refuses the broadcast. */
async function loseSubmission(
  listing: { listingId: Hex; price: bigint },
  renter: { address: Hex },
  count: number,
) {
  proxy.fail("eth_sendRawTransaction");
  const inserted = await insertDebitPendingRuns(stack(), listing, [renter], count);
  await until("the batch recorded but never sent", async () => {
    const rows = await runRows(stack(), inserted.ids);
    return rows.every((row) => row.debitTx !== null);
  });
  expect(await runEvents(stack(), "QueryConsumed", inserted.onChainRunIds)).toEqual([]);
  return inserted;
}

/** The run's debit as another transaction of the operator's made it: one the node has forgotten. */
async function debitElsewhere(runId: string): Promise<Hex> {
  const row = await runRow(stack(), runId);
  const receipt = await stack().marketplace.mined(
    stack()
      .marketplace.as(devAccount(LOCAL_ROLES.operator))
      .write.consumeQuery([
        row.onChainListingId as Hex,
        row.wallet as Hex,
        BigInt(row.onChainRunId),
        BigInt(row.reservedWei),
        true,
      ]),
  );
  return receipt.transactionHash;
}

function debitedRuns(ids: string[]) {
  return until(
    `${ids.length} runs debited`,
    async () => {
      const rows = await runRows(stack(), ids);
      return rows.every((row) => row.charge === "debited") && rows;
    },
    30_000,
  );
}

/** The settlement's error lines since output line `from` that name `runId`. */
function errorsNaming(from: number, runId: string) {
  return output
    .slice(from)
    .join("")
    .split("\n")
    .filter((line) => line.includes('"level":"error"') && line.includes(runId));
}

describe("reconciling a lost debit batch", () => {
  it("finding M-2: reconciles through a node capping eth_getLogs at 1,000 blocks, and goes on debiting", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const [renter] = await perTaskRenters(stack(), listing, 1, PRICE * 10n);
    if (!renter) throw new Error("a renter expected");
    const lost = await loseSubmission(listing, renter, 3);
    await rpcRequest(stack().anvil.rpcUrl, "anvil_mine", [toHex(MAX_LOG_BLOCKS + 100)]);
    // One of them reached the chain after all, by a transaction the node no longer knows.
    const elsewhere = await debitElsewhere(lost.ids[0] as string);
    const refused = await fetch(proxy.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getLogs",
        params: [{ fromBlock: toHex(stack().deployment.startBlock), toBlock: "latest" }],
      }),
    });
    expect(((await refused.json()) as { error?: { code: number } }).error?.code).toBe(
      LOG_RANGE_REFUSED,
    );

    proxy.restore();
    const rows = await debitedRuns(lost.ids);
    expect(rows.find((row) => row.id === lost.ids[0])?.debitTx).toBe(elsewhere);
    const consumed = await runEvents(stack(), "QueryConsumed", lost.onChainRunIds);
    expect(consumed).toHaveLength(3);
    expect(new Set(consumed.map((log) => log.args.runId)).size).toBe(3);
    expect(rows.reduce((sum, row) => sum + BigInt(row.costWei), 0n)).toBe(3n * PRICE);
    expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(7n * PRICE);

    const next = await insertDebitPendingRuns(stack(), listing, [renter], 2);
    await debitedRuns(next.ids);
    expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(5n * PRICE);
  });

  it("finding L-3: a debit of the same run id for another renter on another listing is not this run's", async () => {
    const first = await newListing(stack(), "per_query", PRICE);
    const [firstRenter] = await perTaskRenters(stack(), first, 1, PRICE * 10n);
    const other = await newListing(stack(), "per_query", PRICE);
    const [otherRenter] = await perTaskRenters(stack(), other, 1, PRICE * 10n);
    if (!firstRenter || !otherRenter) throw new Error("renters expected");
    const debited = await insertDebitPendingRuns(stack(), first, [firstRenter], 1);
    await debitedRuns(debited.ids);
    const reused = debited.onChainRunIds[0] as bigint;

    // A database restored from a backup taken before that run hands its on-chain id out again.
    await stack()
      .db.delete(runs)
      .where(eq(runs.id, debited.ids[0] as string));
    const heardBefore = output.length;
    const [again] = await insertFinishedRuns(stack(), [
      { ...debitPendingRun(other, otherRenter.address), onChainRunId: reused },
    ]);
    if (!again) throw new Error("a run expected");
    const row = await until("the run settled or set aside", async () => {
      const row = await runRow(stack(), again.id);
      return (row.charge !== "debit_pending" || row.quarantinedAt !== null) && row;
    });

    expect(row).toMatchObject({ charge: "debit_pending", costWei: "0" });
    expect(row.quarantinedAt).not.toBeNull();
    expect(await balanceOf(stack(), other.listingId, otherRenter.address)).toBe(10n * PRICE);
    const consumed = await runEvents(stack(), "QueryConsumed", [reused]);
    expect(consumed.map((log) => log.args.buyer)).toEqual([firstRenter.address]);
    await until("an error naming the run", () => errorsNaming(heardBefore, again.id).length > 0);
  });

  it("sets aside, loudly, a batch it cannot reconcile; the other runs are debited meanwhile", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const [renter] = await perTaskRenters(stack(), listing, 1, PRICE * 10n);
    if (!renter) throw new Error("a renter expected");
    const stuck = await loseSubmission(listing, renter, 1);
    const stuckId = stuck.ids[0] as string;
    // The node answers everything but the logs that would tell the run's debit, from before that
    // debit is mined: a round in between would find it.
    const heardBefore = output.length;
    proxy.fail("eth_getLogs");
    await debitElsewhere(stuckId);
    proxy.restore();
    proxy.fail("eth_getLogs");

    const others = await insertDebitPendingRuns(stack(), listing, [renter], 2);
    await debitedRuns(others.ids);
    const setAside = await until("the run set aside", async () => {
      const row = await runRow(stack(), stuckId);
      return row.quarantinedAt !== null && row;
    });
    expect(setAside).toMatchObject({ charge: "debit_pending", costWei: "0" });
    expect(setAside.quarantineReason).toMatch(/could not be reconciled/);
    await until("an error naming the run", () => errorsNaming(heardBefore, stuckId).length > 0);

    // Set aside, it is neither sent again nor taken as debited once the logs can be read.
    proxy.restore();
    const more = await insertDebitPendingRuns(stack(), listing, [renter], 1);
    await debitedRuns(more.ids);
    expect(await runRow(stack(), stuckId)).toMatchObject({
      charge: "debit_pending",
      debitTx: setAside.debitTx,
    });
    expect(await runEvents(stack(), "QueryConsumed", stuck.onChainRunIds)).toHaveLength(1);
    expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(6n * PRICE);
  });
});

describe("a debit batch that reverts on-chain", () => {
  it("retries the runs of a batch mined reverted (the protocol paused under it), charging each once", async () => {
    const count = 3;
    const deposit = PRICE * 10n;
    const listing = await newListing(stack(), "per_query", PRICE);
    const [renter] = await perTaskRenters(stack(), listing, 1, deposit);
    if (!renter) throw new Error("a renter expected");
    const authority = stack().marketplace.as(devAccount(LOCAL_ROLES.authority));
    const client = stack().marketplace.publicClient;
    const anvil = stack().anvil.rpcUrl;
    const heardBefore = output.length;
    let paused = false;

    // Blocks are mined only when asked, so the pause can be put in front of the batch already sent.
    await rpcRequest(anvil, "evm_setAutomine", [false]);
    try {
      const batch = await insertDebitPendingRuns(stack(), listing, [renter], count);
      const sent = await until("the debit batch waiting in the node's pool", async () => {
        const rows = await runRows(stack(), batch.ids);
        const tx = rows[0]?.debitTx as Hex | null | undefined;
        if (!tx || rows.some((row) => row.debitTx !== tx)) return false;
        return client.getTransaction({ hash: tx }).catch(() => false as const);
      });
      // Estimated unpaused; the authority's pause, paying a higher tip, is mined ahead of it.
      const tip = (sent.maxPriorityFeePerGas ?? 0n) * 10n + 1n;
      const pause = await authority.write.setPaused([true], {
        maxPriorityFeePerGas: tip,
        maxFeePerGas: (sent.maxFeePerGas ?? 0n) + tip,
      });
      paused = true;
      await rpcRequest(anvil, "evm_mine", []);
      const [pauseReceipt, debitReceipt] = await Promise.all([
        client.getTransactionReceipt({ hash: pause }),
        client.getTransactionReceipt({ hash: sent.hash }),
      ]);
      expect(pauseReceipt.status).toBe("success");
      expect({
        status: debitReceipt.status,
        block: debitReceipt.blockNumber,
        logs: debitReceipt.logs.length,
      }).toEqual({ status: "reverted", block: pauseReceipt.blockNumber, logs: 0 });
      expect(debitReceipt.transactionIndex).toBeGreaterThan(pauseReceipt.transactionIndex);
      await rpcRequest(anvil, "evm_setAutomine", [true]);

      // The reverted batch changed nothing; its runs go again, and the paused contract refuses the
      // new batch at its estimate, so nothing is sent while the protocol is paused.
      await until(
        "the reverted batch noted",
        () => heardSince(output, heardBefore, "debit batch reverted", sent.hash),
        15_000,
      );
      await until(
        "the reverted batch's runs released for the next batch",
        async () => (await runRows(stack(), batch.ids)).every((row) => row.debitTx === null),
        15_000,
      );
      await until(
        "the next batch refused at its estimate",
        () => heardSince(output, heardBefore, "settlement step failed", "ProtocolPaused"),
        15_000,
      );
      for (const row of await runRows(stack(), batch.ids)) {
        expect(row).toMatchObject({
          status: "completed",
          charge: "debit_pending",
          debitTx: null,
          costWei: "0",
          logged: false,
        });
      }
      expect(await runEvents(stack(), "QueryConsumed", batch.onChainRunIds)).toEqual([]);
      expect(await runEvents(stack(), "QueryNotConsumed", batch.onChainRunIds)).toEqual([]);
      expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(deposit);

      await stack().marketplace.mined(authority.write.setPaused([false]));
      paused = false;
      const rows = await debitedRuns(batch.ids);
      const consumed = await runEvents(stack(), "QueryConsumed", batch.onChainRunIds);
      expect(consumed).toHaveLength(count);
      expect(new Set(consumed.map((log) => log.args.runId)).size).toBe(count);
      for (const row of rows) {
        const debit = consumed.find((log) => log.args.runId === BigInt(row.onChainRunId));
        expect(row).toMatchObject({
          costWei: PRICE.toString(),
          debitTx: debit?.transactionHash,
          debitBlock: debit?.blockNumber,
          logged: true,
        });
        expect(row.debitTx).not.toBe(sent.hash);
      }
      const books = await perTaskLedger(stack(), listing.listingId, renter.address);
      expect({
        costs: books.costWei,
        onChain: books.debitedWei,
        decrease: deposit - books.balance,
        runs: books.runsByCharge,
      }).toEqual({
        costs: BigInt(count) * PRICE,
        onChain: BigInt(count) * PRICE,
        decrease: BigInt(count) * PRICE,
        runs: { debited: count },
      });
    } finally {
      await rpcRequest(anvil, "evm_setAutomine", [true]);
      if (paused) await stack().marketplace.mined(authority.write.setPaused([false]));
    }
  });
});

// Last in the file: it replaces the file's settling worker with one that waits for confirmations.
describe("a debit batch and its confirmations", () => {
  const CONFIRMATIONS = 3;

  beforeAll(async () => {
    await worker.stop();
    await stack().addWorker({
      RPC_URL: proxy.url,
      SETTLEMENT_CONFIRMATIONS: String(CONFIRMATIONS),
    });
    await until("a settlement leader", () => settlementLeader(stack()));
  });

  /**
   * The runs' debit batch once the chain has mined it in a block other than `replaced`: its hash and
   * block. Sent again after a reorg, the same transaction may be signed again to the same hash.
   */
  function minedBatch(ids: string[], replaced?: Hex) {
    return until("the debit batch mined", async () => {
      const rows = await runRows(stack(), ids);
      const tx = rows[0]?.debitTx as Hex | null | undefined;
      if (!tx || rows.some((row) => row.debitTx !== tx)) return false;
      const receipt = await stack()
        .marketplace.publicClient.getTransactionReceipt({ hash: tx })
        .catch(() => undefined);
      if (!receipt || receipt.blockHash === replaced) return false;
      return { tx, block: receipt.blockNumber, blockHash: receipt.blockHash };
    });
  }

  it("finding L-2: a batch removed by a reorg before its confirmations leaves no run debited, and is sent again", async () => {
    const listing = await newListing(stack(), "per_query", PRICE);
    const [renter] = await perTaskRenters(stack(), listing, 1, PRICE * 10n);
    if (!renter) throw new Error("a renter expected");
    const batch = await insertDebitPendingRuns(stack(), listing, [renter], 2);
    const first = await minedBatch(batch.ids);
    expect(await runEvents(stack(), "QueryConsumed", batch.onChainRunIds)).toHaveLength(2);

    // One block short of its confirmations, two rounds of settlement read the receipt and wait.
    await rpcRequest(stack().anvil.rpcUrl, "anvil_mine", [toHex(CONFIRMATIONS - 1)]);
    const receiptsRead = proxy.asked("eth_getTransactionReceipt");
    await until(
      "two more rounds, or the runs marked debited",
      async () =>
        proxy.asked("eth_getTransactionReceipt") >= receiptsRead + 2 ||
        (await runRows(stack(), batch.ids)).some((row) => row.charge !== "debit_pending"),
    );
    for (const row of await runRows(stack(), batch.ids)) {
      expect(row).toMatchObject({ charge: "debit_pending", costWei: "0", debitTx: first.tx });
    }

    // A reorg replaces the batch's block and those after it with empty ones.
    const head = await stack().marketplace.publicClient.getBlockNumber();
    await rpcRequest(stack().anvil.rpcUrl, "anvil_reorg", [Number(head - first.block + 1n), []]);
    expect(await runEvents(stack(), "QueryConsumed", batch.onChainRunIds)).toEqual([]);
    expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(10n * PRICE);

    const again = await minedBatch(batch.ids, first.blockHash);
    await rpcRequest(stack().anvil.rpcUrl, "anvil_mine", [toHex(CONFIRMATIONS)]);
    const rows = await debitedRuns(batch.ids);
    for (const row of rows) {
      expect(row).toMatchObject({
        debitTx: again.tx,
        debitBlock: again.block,
        costWei: PRICE.toString(),
      });
    }
    const consumed = await runEvents(stack(), "QueryConsumed", batch.onChainRunIds);
    expect(consumed.map((log) => log.blockHash)).toEqual([again.blockHash, again.blockHash]);
    expect(await balanceOf(stack(), listing.listingId, renter.address)).toBe(8n * PRICE);
  });
});
