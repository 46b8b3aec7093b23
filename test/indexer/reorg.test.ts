import { and, eq } from "drizzle-orm";
import { type Address, encodeFunctionData, type Hex, numberToHex, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectMarketplace,
  type MarketplaceConnection,
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  seedOf,
} from "../../devStack/marketplace.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { type Deployment, deployMarketplace } from "../../lib/chain/deployMarketplace.ts";
import { devAccount, devPrivateKey } from "../../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { connectProjections, type ProjectionsDb, projections } from "../../lib/db/projections.ts";
import {
  startTestAnvil,
  startTestPonder,
  startTestPostgres,
  type TestPonder,
} from "../harness/harness.ts";

const { listing, credential, creator, protocol, purchaseEvent, debitEvent, runEvent } = projections;

const authority = devAccount(0);
const alice = devAccount(2); // creates both listings
const carol = devAccount(4); // holds the per-task balance
const dave = devAccount(5); // buys one-time access before the fork
const erin = devAccount(6); // buys one-time access in a block the reorg removes
const frank = devAccount(7); // buys one-time access in the replacement block

const ONE_TIME_PRICE = parseEther("0.01");
const TASK_PRICE = parseEther("0.001");
const DEPOSIT = 5n * TASK_PRICE;

const feeOf = (amount: bigint) => (amount * 250n) / 10_000n;
const shareOf = (amount: bigint) => amount - feeOf(amount);
const lower = (address: Address) => address.toLowerCase() as Hex;

type Landed = { blockNumber: bigint; timestamp: bigint; transactionHash: Hex };

const started: { stop: () => Promise<void> }[] = [];
let rpcUrl: string;
let deployment: Deployment;
let marketplace: MarketplaceConnection;
let ponder: TestPonder;
let db: ProjectionsDb;

beforeAll(async () => {
  const anvil = await startTestAnvil();
  started.push(anvil);
  rpcUrl = anvil.rpcUrl;
  const postgres = await startTestPostgres();
  started.push(postgres);
  deployment = await deployMarketplace({
    rpcUrl,
    deployerKey: devPrivateKey(0),
    authority: authority.address,
    feeRecipient: devAccount(1).address,
  });
  marketplace = connectMarketplace(rpcUrl, deployment.address);
  ponder = await startTestPonder({ rpcUrl, databaseUrl: postgres.databaseUrl, deployment });
  started.push(ponder);
  const projectionsDb = connectProjections(postgres.databaseUrl, ponder.viewsSchema);
  started.push({ stop: projectionsDb.close });
  db = projectionsDb.db;
});

afterAll(async () => {
  for (const service of started.reverse()) await service.stop().catch(() => {});
});

/** The latest block number; viem would otherwise answer from a cache a few seconds old. */
const chainHead = () => marketplace.publicClient.getBlockNumber({ cacheTime: 0 });

async function landedIn(blockNumber: bigint, transactionHash: Hex): Promise<Landed> {
  const block = await marketplace.publicClient.getBlock({ blockNumber });
  return { blockNumber, timestamp: block.timestamp, transactionHash };
}

async function send(transaction: Promise<Hex>): Promise<Landed> {
  const receipt = await marketplace.mined(transaction);
  return landedIn(receipt.blockNumber, receipt.transactionHash);
}

const listingRows = (id: Hex) => db.select().from(listing).where(eq(listing.id, id));
const credentialRows = (listingId: Hex, buyer: Address) =>
  db
    .select()
    .from(credential)
    .where(and(eq(credential.listingId, listingId), eq(credential.buyer, buyer)));

describe("a reorg replacing a purchase and a debit", () => {
  let oneTimeId: Hex;
  let perQueryId: Hex;
  const history = {} as Record<
    "oneTimeCreated" | "perQueryCreated" | "deposit" | "firstDebit" | "davePurchase",
    Landed
  >;
  let doomedPurchase: Landed;
  let doomedDebit: Landed;
  let replacement: Landed;

  async function createListing(seedText: string, model: number, price: bigint) {
    const seed = seedOf(seedText);
    const market = marketplace.as(alice);
    const landed = await send(market.write.createListing([seed, model, price, METADATA_URI]));
    return { id: await market.read.deriveListingId([alice.address, seed]), landed };
  }

  it("indexes a purchase and a debit at the chain's tip", async () => {
    const oneTime = await createListing("one-time", ONE_TIME, ONE_TIME_PRICE);
    const perQuery = await createListing("per-task", PER_QUERY, TASK_PRICE);
    oneTimeId = oneTime.id;
    perQueryId = perQuery.id;
    history.oneTimeCreated = oneTime.landed;
    history.perQueryCreated = perQuery.landed;
    history.deposit = await send(
      marketplace.as(carol).write.purchasePerQuery([perQueryId], { value: DEPOSIT }),
    );
    history.firstDebit = await send(
      marketplace.as(authority).write.consumeQuery([perQueryId, carol.address, 1n]),
    );
    history.davePurchase = await send(
      marketplace.as(dave).write.purchaseOneTime([oneTimeId], { value: ONE_TIME_PRICE }),
    );

    doomedPurchase = await send(
      marketplace.as(erin).write.purchaseOneTime([oneTimeId], { value: ONE_TIME_PRICE }),
    );
    doomedDebit = await send(
      marketplace.as(authority).write.consumeQuery([perQueryId, carol.address, 2n]),
    );
    await ponder.waitForBlock(doomedDebit.blockNumber);

    expect(await credentialRows(oneTimeId, erin.address)).toHaveLength(1);
    expect(await db.select().from(debitEvent)).toHaveLength(2);
    const [oneTimeRow] = await listingRows(oneTimeId);
    expect(oneTimeRow?.escrow).toBe(2n * shareOf(ONE_TIME_PRICE));
    expect(oneTimeRow?.credentialCount).toBe(2);
    const [perQueryRow] = await listingRows(perQueryId);
    expect(perQueryRow?.escrow).toBe(2n * shareOf(TASK_PRICE));
    expect(perQueryRow?.runCount).toBe(2);
  });

  it("converges to the new canonical chain after anvil_reorg replaces both blocks", async () => {
    // Two blocks deep: the purchase block becomes frank's purchase, the debit block an empty one.
    const frankPurchase = {
      from: frank.address,
      to: deployment.address,
      data: encodeFunctionData({
        abi: serviceMarketplaceAbi,
        functionName: "purchaseOneTime",
        args: [oneTimeId],
      }),
      value: numberToHex(ONE_TIME_PRICE),
    };
    await rpcRequest(rpcUrl, "anvil_reorg", [2, [[frankPurchase, 0]]]);
    await rpcRequest(rpcUrl, "evm_mine");
    await rpcRequest(rpcUrl, "evm_mine");
    const head = await chainHead();
    expect(head).toBe(doomedDebit.blockNumber + 2n);
    // A block past the old tip can only be indexed once Ponder has rolled the fork back.
    await ponder.waitForBlock(head);

    const replacementBlock = await marketplace.publicClient.getBlock({
      blockNumber: doomedPurchase.blockNumber,
    });
    const [replacementHash] = replacementBlock.transactions;
    if (!replacementHash) throw new Error("the replacement block holds no transaction");
    const receipt = await marketplace.publicClient.getTransactionReceipt({
      hash: replacementHash,
    });
    expect(receipt.status).toBe("success");
    replacement = await landedIn(doomedPurchase.blockNumber, replacementHash);
    expect(await marketplace.as(authority).read.isRunRecorded([2n])).toBe(false);

    expect(await credentialRows(oneTimeId, erin.address)).toEqual([]);
    expect(await credentialRows(oneTimeId, frank.address)).toEqual([
      {
        listingId: oneTimeId,
        buyer: lower(frank.address),
        rentalModel: "one_time",
        purchasedAt: replacement.timestamp,
        expiresAt: null,
        isRevoked: false,
        balance: 0n,
        totalPaid: ONE_TIME_PRICE,
        tasksConsumed: 0,
        updatedAt: replacement.timestamp,
      },
    ]);
    expect(await credentialRows(perQueryId, carol.address)).toEqual([
      {
        listingId: perQueryId,
        buyer: lower(carol.address),
        rentalModel: "per_query",
        purchasedAt: history.deposit.timestamp,
        expiresAt: null,
        isRevoked: false,
        balance: DEPOSIT - TASK_PRICE,
        totalPaid: DEPOSIT,
        tasksConsumed: 1,
        updatedAt: history.firstDebit.timestamp,
      },
    ]);
  });

  it("rolls the aggregates back to what the new chain holds, as the contract reports", async () => {
    const listingBase = {
      creator: lower(alice.address),
      status: "active",
      metadataUri: METADATA_URI,
      totalWithdrawn: 0n,
      failedRunCount: 0,
    } as const;
    const oneTimeRow = {
      ...listingBase,
      id: oneTimeId,
      rentalModel: "one_time",
      price: ONE_TIME_PRICE,
      publishedAt: history.oneTimeCreated.timestamp,
      updatedAt: history.oneTimeCreated.timestamp,
      escrow: 2n * shareOf(ONE_TIME_PRICE),
      accruedFees: 2n * feeOf(ONE_TIME_PRICE),
      totalEarned: 2n * shareOf(ONE_TIME_PRICE),
      credentialCount: 2,
      runCount: 0,
    } as const;
    const perQueryRow = {
      ...listingBase,
      id: perQueryId,
      rentalModel: "per_query",
      price: TASK_PRICE,
      publishedAt: history.perQueryCreated.timestamp,
      updatedAt: history.perQueryCreated.timestamp,
      escrow: shareOf(TASK_PRICE),
      accruedFees: feeOf(TASK_PRICE),
      totalEarned: shareOf(TASK_PRICE),
      credentialCount: 1,
      runCount: 1,
    } as const;
    expect(await listingRows(oneTimeId)).toEqual([oneTimeRow]);
    expect(await listingRows(perQueryId)).toEqual([perQueryRow]);
    for (const row of [oneTimeRow, perQueryRow]) {
      const [, , escrow, accruedFees] = await marketplace.as(alice).read.listings([row.id]);
      expect({ escrow, accruedFees }).toEqual({
        escrow: row.escrow,
        accruedFees: row.accruedFees,
      });
    }

    expect(await db.select().from(creator)).toEqual([
      {
        id: lower(alice.address),
        listingCount: 2,
        totalEarned: oneTimeRow.totalEarned + perQueryRow.totalEarned,
        totalWithdrawn: 0n,
      },
    ]);
    expect(await db.select().from(protocol)).toEqual([
      {
        id: lower(deployment.address),
        authority: lower(authority.address),
        feeRecipient: lower(devAccount(1).address),
        feeBasisPoints: 250,
        paused: false,
        totalFees: oneTimeRow.accruedFees + perQueryRow.accruedFees,
        totalFeesWithdrawn: 0n,
      },
    ]);
  });

  it("drops the removed purchase and debit events and records the replacement's", async () => {
    const anyId = expect.any(String);
    const oneTimePurchase = {
      id: anyId,
      listingId: oneTimeId,
      rentalModel: "one_time",
      amount: ONE_TIME_PRICE,
      fee: feeOf(ONE_TIME_PRICE),
      expiresAt: null,
    };
    expect(await db.select().from(purchaseEvent).orderBy(purchaseEvent.id)).toEqual([
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
    expect(await db.select().from(debitEvent)).toEqual([
      {
        id: anyId,
        listingId: perQueryId,
        buyer: lower(carol.address),
        runId: 1n,
        price: TASK_PRICE,
        fee: feeOf(TASK_PRICE),
        balance: DEPOSIT - TASK_PRICE,
        ...history.firstDebit,
      },
    ]);
    expect(await db.select().from(runEvent)).toEqual([
      {
        id: anyId,
        listingId: perQueryId,
        runId: 1n,
        succeeded: true,
        charged: true,
        ...history.firstDebit,
      },
    ]);
  });
});
