import { encodeFunctionData, type Hex, keccak256, numberToHex, parseEther, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { feeOf, shareOf } from "../../devStack/money.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { projections } from "../../lib/db/projections.ts";
import type { RentalModel } from "../../lib/marketplace/vocabulary.ts";
import { createListing, type Landed, landedIn } from "../support/marketplaceTransactions.ts";
import {
  credentialRows,
  listingRows,
  lower,
  newCredentialRow,
  newListingRow,
} from "../support/projectionRows.ts";
import { useStack } from "../support/useStack.ts";

const { creator, protocol, purchaseEvent, debitEvent, runEvent, anchoredRunCount } = projections;

const authority = devAccount(0);
const alice = devAccount(2); // creates both listings
const carol = devAccount(4); // holds the per-task balance
const dave = devAccount(5); // buys one-time access before the fork
const erin = devAccount(6); // buys one-time access in a block the reorg removes
const frank = devAccount(7); // buys one-time access in the replacement block

const ONE_TIME_PRICE = parseEther("0.01");
const TASK_PRICE = parseEther("0.001");
const DEPOSIT = 5n * TASK_PRICE;
/** The anchor the settlement in the doomed block carries, of the one-time listing's runs. */
const DOOMED_ROOT = keccak256(toHex("receipts anchored in a block the reorg removes"));

const stack = useStack({ chain: true, postgres: true, ponder: true });
const db = () => stack().db;
const marketplace = () => stack().marketplace;
/** Sends a transaction, asserts it succeeded and returns where it landed. */
const send = async (transaction: Promise<Hex>) =>
  landedIn(marketplace(), await marketplace().mined(transaction));

describe("a reorg replacing a purchase and a settlement (a debit and an anchor)", () => {
  let oneTimeId: Hex;
  let perQueryId: Hex;
  const history = {} as Record<
    "oneTimeCreated" | "perQueryCreated" | "deposit" | "firstDebit" | "davePurchase",
    Landed
  >;
  let doomedPurchase: Landed;
  let doomedDebit: Landed;
  let replacement: Landed;

  async function list(seedText: string, rentalModel: RentalModel, price: bigint) {
    const listing = { seedText, rentalModel, price };
    const { id, transaction } = createListing(marketplace(), alice, listing);
    return { id, landed: await send(transaction) };
  }

  it("indexes a purchase and a settlement at the chain's tip", async () => {
    const oneTime = await list("one-time", "one_time", ONE_TIME_PRICE);
    const perQuery = await list("per-task", "per_query", TASK_PRICE);
    oneTimeId = oneTime.id;
    perQueryId = perQuery.id;
    history.oneTimeCreated = oneTime.landed;
    history.perQueryCreated = perQuery.landed;
    history.deposit = await send(
      marketplace().as(carol).write.purchasePerQuery([perQueryId, TASK_PRICE], { value: DEPOSIT }),
    );
    history.firstDebit = await send(
      marketplace()
        .as(authority)
        .write.consumeQuery([perQueryId, carol.address, 1n, TASK_PRICE, true]),
    );
    history.davePurchase = await send(
      marketplace().as(dave).write.purchaseOneTime([oneTimeId], { value: ONE_TIME_PRICE }),
    );

    doomedPurchase = await send(
      marketplace().as(erin).write.purchaseOneTime([oneTimeId], { value: ONE_TIME_PRICE }),
    );
    const debit = {
      listingId: perQueryId,
      buyer: carol.address,
      runId: 2n,
      maxPrice: TASK_PRICE,
      succeeded: true,
    };
    const counts = [{ listingId: oneTimeId, runs: 2, failed: 1 }];
    doomedDebit = await send(
      marketplace()
        .as(authority)
        .write.settle([[debit], DOOMED_ROOT, counts]),
    );
    await stack().ponder.waitForBlock(doomedDebit.blockNumber);

    expect(await credentialRows(db(), oneTimeId, erin.address)).toHaveLength(1);
    expect(await db().select().from(debitEvent)).toHaveLength(2);
    const [oneTimeRow] = await listingRows(db(), oneTimeId);
    expect(oneTimeRow?.escrow).toBe(2n * shareOf(ONE_TIME_PRICE));
    expect(oneTimeRow?.credentialCount).toBe(2);
    expect([oneTimeRow?.runCount, oneTimeRow?.failedRunCount]).toEqual([2, 1]);
    expect(await db().select().from(anchoredRunCount)).toMatchObject([
      { root: DOOMED_ROOT, listingId: oneTimeId, runs: 2, failed: 1 },
    ]);
    const [perQueryRow] = await listingRows(db(), perQueryId);
    expect(perQueryRow?.escrow).toBe(2n * shareOf(TASK_PRICE));
    expect(perQueryRow?.runCount).toBe(2);
  });

  it("converges to the new canonical chain after anvil_reorg replaces both blocks", async () => {
    // Two blocks deep: the purchase block becomes frank's purchase, the settlement's block an empty one.
    const frankPurchase = {
      from: frank.address,
      to: stack().deployment.address,
      data: encodeFunctionData({
        abi: serviceMarketplaceAbi,
        functionName: "purchaseOneTime",
        args: [oneTimeId],
      }),
      value: numberToHex(ONE_TIME_PRICE),
    };
    await rpcRequest(stack().anvil.rpcUrl, "anvil_reorg", [2, [[frankPurchase, 0]]]);
    await rpcRequest(stack().anvil.rpcUrl, "evm_mine");
    await rpcRequest(stack().anvil.rpcUrl, "evm_mine");
    const head = await marketplace().publicClient.getBlockNumber();
    expect(head).toBe(doomedDebit.blockNumber + 2n);
    // A block past the old tip can only be indexed once Ponder has rolled the fork back.
    await stack().ponder.waitForBlock(head);

    const replacementBlock = await marketplace().publicClient.getBlock({
      blockNumber: doomedPurchase.blockNumber,
    });
    const [replacementHash] = replacementBlock.transactions;
    if (!replacementHash) throw new Error("the replacement block holds no transaction");
    const receipt = await marketplace().publicClient.getTransactionReceipt({
      hash: replacementHash,
    });
    expect(receipt.status).toBe("success");
    replacement = await landedIn(marketplace(), {
      blockNumber: doomedPurchase.blockNumber,
      transactionHash: replacementHash,
    });
    expect(await marketplace().as(authority).read.isRunRecorded([2n])).toBe(false);
    expect(await marketplace().as(authority).read.anchoredAt([DOOMED_ROOT])).toBe(0n);

    expect(await credentialRows(db(), oneTimeId, erin.address)).toEqual([]);
    expect(await credentialRows(db(), oneTimeId, frank.address)).toEqual([
      newCredentialRow({ id: oneTimeId, rentalModel: "one_time" }, frank.address, {
        timestamp: replacement.timestamp,
        totalPaid: ONE_TIME_PRICE,
      }),
    ]);
    const deposit = newCredentialRow({ id: perQueryId, rentalModel: "per_query" }, carol.address, {
      timestamp: history.deposit.timestamp,
      totalPaid: DEPOSIT,
      agreedPrice: TASK_PRICE,
    });
    expect(await credentialRows(db(), perQueryId, carol.address)).toEqual([
      {
        ...deposit,
        balance: DEPOSIT - TASK_PRICE,
        tasksConsumed: 1,
        updatedAt: history.firstDebit.timestamp,
      },
    ]);
  });

  it("rolls the aggregates back to what the new chain holds, as the contract reports", async () => {
    const listed = (id: Hex, rentalModel: RentalModel, price: bigint, { timestamp }: Landed) =>
      newListingRow({ id, creator: alice.address, rentalModel, price, timestamp });
    const oneTimeRow = {
      ...listed(oneTimeId, "one_time", ONE_TIME_PRICE, history.oneTimeCreated),
      escrow: 2n * shareOf(ONE_TIME_PRICE),
      accruedFees: 2n * feeOf(ONE_TIME_PRICE),
      totalEarned: 2n * shareOf(ONE_TIME_PRICE),
      credentialCount: 2,
    };
    const perQueryRow = {
      ...listed(perQueryId, "per_query", TASK_PRICE, history.perQueryCreated),
      escrow: shareOf(TASK_PRICE),
      accruedFees: feeOf(TASK_PRICE),
      totalEarned: shareOf(TASK_PRICE),
      credentialCount: 1,
      runCount: 1,
    };
    expect(await listingRows(db(), oneTimeId)).toEqual([oneTimeRow]);
    expect(await listingRows(db(), perQueryId)).toEqual([perQueryRow]);
    for (const row of [oneTimeRow, perQueryRow]) {
      const [, , escrow, accruedFees] = await marketplace().as(alice).read.listings([row.id]);
      expect({ escrow, accruedFees }).toEqual({
        escrow: row.escrow,
        accruedFees: row.accruedFees,
      });
    }

    expect(await db().select().from(creator)).toEqual([
      {
        id: lower(alice.address),
        listingCount: 2,
        totalEarned: oneTimeRow.totalEarned + perQueryRow.totalEarned,
        totalWithdrawn: 0n,
      },
    ]);
    expect(await db().select().from(protocol)).toEqual([
      {
        id: lower(stack().deployment.address),
        authority: lower(authority.address),
        operator: lower(devAccount(LOCAL_ROLES.operator).address),
        feeRecipient: lower(devAccount(1).address),
        feeBasisPoints: 250,
        paused: false,
        totalFees: oneTimeRow.accruedFees + perQueryRow.accruedFees,
        totalFeesWithdrawn: 0n,
      },
    ]);
  });

  it("drops the removed purchase, debit and anchor events and records the replacement's", async () => {
    const anyId = expect.any(String);
    const oneTimePurchase = {
      id: anyId,
      listingId: oneTimeId,
      rentalModel: "one_time",
      amount: ONE_TIME_PRICE,
      fee: feeOf(ONE_TIME_PRICE),
      expiresAt: null,
    };
    expect(await db().select().from(purchaseEvent).orderBy(purchaseEvent.id)).toEqual([
      {
        id: anyId,
        listingId: perQueryId,
        buyer: lower(carol.address),
        rentalModel: "per_query",
        amount: DEPOSIT,
        fee: 0n,
        expiresAt: null,
        ...history.deposit,
      },
      { ...oneTimePurchase, buyer: lower(dave.address), ...history.davePurchase },
      { ...oneTimePurchase, buyer: lower(frank.address), ...replacement },
    ]);
    expect(await db().select().from(debitEvent)).toEqual([
      {
        id: anyId,
        listingId: perQueryId,
        buyer: lower(carol.address),
        runId: 1n,
        price: TASK_PRICE,
        fee: feeOf(TASK_PRICE),
        balance: DEPOSIT - TASK_PRICE,
        succeeded: true,
        ...history.firstDebit,
      },
    ]);
    expect(await db().select().from(runEvent)).toEqual([
      {
        id: anyId,
        listingId: perQueryId,
        runId: 1n,
        succeeded: true,
        charged: true,
        ...history.firstDebit,
      },
    ]);
    expect(await db().select().from(anchoredRunCount)).toEqual([]);
  });
});
