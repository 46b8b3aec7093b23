import postgres from "postgres";
import { type Hex, keccak256, parseEther, toHex, zeroAddress, zeroHash } from "viem";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { seedOf, THIRTY_DAYS } from "../../devStack/marketplace.ts";
import { feeOf, shareOf } from "../../devStack/money.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { INDEXER_ROLE, indexerDatabaseUrl } from "../../indexer/indexerRole.ts";
import { contractErrorName } from "../../lib/chain/contractErrorName.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { projections } from "../../lib/db/projections.ts";
import type { RentalModel } from "../../lib/marketplace/vocabulary.ts";
import { createListing, type Landed, landedIn } from "../support/marketplaceTransactions.ts";
import {
  type CredentialRow,
  credentialRows,
  type ListingRow,
  listingRows,
  lower,
  newCredentialRow,
  newListingRow,
} from "../support/projectionRows.ts";
import { useStack } from "../support/useStack.ts";

const {
  listing,
  creator,
  protocol,
  purchaseEvent,
  renewalEvent,
  topUpEvent,
  debitEvent,
  runEvent,
  anchoredRunCount,
  revocationEvent,
  withdrawalEvent,
  feeChangeEvent,
  operatorChangeEvent,
} = projections;

const authority = devAccount(0);
const operator = devAccount(LOCAL_ROLES.operator);
const feeRecipient = devAccount(1);
const alice = devAccount(2); // creates the one-time and subscription listings
const bob = devAccount(3); // creates the per-task listing
const carol = devAccount(4);
const dave = devAccount(5);
const erin = devAccount(6);

const ONE_TIME_PRICE = parseEther("0.01");
const SUBSCRIPTION_PRICE = parseEther("0.02");
const TASK_PRICE = parseEther("0.001");
const UPDATED_PRICE = parseEther("0.015");
const UPDATED_URI = "ipfs://bafkreiupdatedmetadata";
const NINETY_DAYS = 3n * THIRTY_DAYS;
const DAY = 24n * 60n * 60n;

const anyId = expect.any(String);

const stack = useStack({ chain: true, postgres: true, ponder: true });
const db = () => stack().db;
const marketplace = () => stack().marketplace;

// Ready means the finalized history is indexed; the young deployment block is indexed live.
beforeAll(() => stack().ponder.waitForBlock(stack().deployment.startBlock));

/** Sends a transaction, waits until Ponder indexed its block and returns where it landed. */
async function indexed(transaction: Promise<Hex>): Promise<Landed> {
  const receipt = await marketplace().mined(transaction);
  await stack().ponder.waitForBlock(receipt.blockNumber);
  return landedIn(marketplace(), receipt);
}

const ordered = <T extends { id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
const creatorRows = () => db().select().from(creator).orderBy(creator.id);
const protocolRows = () => db().select().from(protocol);
const purchaseRows = () => db().select().from(purchaseEvent).orderBy(purchaseEvent.id);
const renewalRows = () => db().select().from(renewalEvent).orderBy(renewalEvent.id);
const topUpRows = () => db().select().from(topUpEvent).orderBy(topUpEvent.id);
const debitRows = () => db().select().from(debitEvent).orderBy(debitEvent.id);
const runRows = () => db().select().from(runEvent).orderBy(runEvent.id);
const anchoredRows = () => db().select().from(anchoredRunCount).orderBy(anchoredRunCount.id);
const revocationRows = () => db().select().from(revocationEvent).orderBy(revocationEvent.id);
const withdrawalRows = () => db().select().from(withdrawalEvent).orderBy(withdrawalEvent.id);
const feeChangeRows = () => db().select().from(feeChangeEvent).orderBy(feeChangeEvent.id);
const operatorChangeRows = () =>
  db().select().from(operatorChangeEvent).orderBy(operatorChangeEvent.id);

type Rows<Read extends () => Promise<unknown[]>> = Awaited<ReturnType<Read>>;
type CreatorRow = Rows<typeof creatorRows>[number];

describe("projections follow every marketplace operation", () => {
  let oneTimeId: Hex;
  let subscriptionId: Hex;
  let perQueryId: Hex;

  // The rows expected so far; each step states what it changes, then `expectAggregates` checks the
  // listings, creators and protocol whole.
  let oneTime: ListingRow;
  let subscription: ListingRow;
  let perQuery: ListingRow;
  let aliceCreator: CreatorRow;
  let bobCreator: CreatorRow;
  let protocolRow: Rows<typeof protocolRows>[number];
  let carolOneTime: CredentialRow;
  let daveSubscription: CredentialRow;
  let erinPerQuery: CredentialRow;
  const purchases: Rows<typeof purchaseRows> = [];
  const runs: Rows<typeof runRows> = [];
  const revocations: Rows<typeof revocationRows> = [];
  const withdrawals: Rows<typeof withdrawalRows> = [];
  const feeChanges: Rows<typeof feeChangeRows> = [];
  const operatorChanges: Rows<typeof operatorChangeRows> = [];

  async function expectAggregates() {
    expect(await listingRows(db(), oneTimeId)).toEqual([oneTime]);
    expect(await listingRows(db(), subscriptionId)).toEqual([subscription]);
    expect(await listingRows(db(), perQueryId)).toEqual([perQuery]);
    expect(await creatorRows()).toEqual(ordered([aliceCreator, bobCreator]));
    expect(await protocolRows()).toEqual([protocolRow]);
  }

  /**
   * Books a sale of `amount` on `row`'s listing as the contract does (the creator's share to escrow
   * and earnings, the fee to the protocol's total) and returns the listing's new row.
   */
  function bookSale(row: ListingRow, amount: bigint): ListingRow {
    protocolRow = { ...protocolRow, totalFees: protocolRow.totalFees + feeOf(amount) };
    const earned = (owner: CreatorRow) => ({
      ...owner,
      totalEarned: owner.totalEarned + shareOf(amount),
    });
    if (row.creator === aliceCreator.id) aliceCreator = earned(aliceCreator);
    else bobCreator = earned(bobCreator);
    return {
      ...row,
      escrow: row.escrow + shareOf(amount),
      accruedFees: row.accruedFees + feeOf(amount),
      totalEarned: row.totalEarned + shareOf(amount),
    };
  }

  async function list(owner: HDAccount, seedText: string, rentalModel: RentalModel, price: bigint) {
    const { id, transaction } = createListing(marketplace(), owner, {
      seedText,
      rentalModel,
      price,
    });
    const { timestamp } = await indexed(transaction);
    return newListingRow({ id, creator: owner.address, rentalModel, price, timestamp });
  }

  /**
   * After a purchase of `amount` (`fee` of it taken) landed: the buyer's credential row is
   * `credential`, the aggregates are as expected and one more purchase event records it.
   */
  async function expectPurchased(
    credential: CredentialRow,
    { amount, fee, landed }: { amount: bigint; fee: bigint; landed: Landed },
  ) {
    const { listingId, buyer, rentalModel, expiresAt } = credential;
    expect(await credentialRows(db(), listingId, buyer)).toEqual([credential]);
    await expectAggregates();
    purchases.push({ id: anyId, listingId, buyer, rentalModel, amount, fee, expiresAt, ...landed });
    expect(await purchaseRows()).toEqual(purchases);
  }

  /** After `credential` was revoked where `landed` says, leaving `balance` (per-task only). */
  async function expectRevoked(credential: CredentialRow, landed: Landed, balance: bigint | null) {
    const revoked = { ...credential, isRevoked: true, updatedAt: landed.timestamp };
    const { listingId, buyer } = revoked;
    expect(await credentialRows(db(), listingId, buyer)).toEqual([revoked]);
    revocations.push({ id: anyId, listingId, buyer, balance, ...landed });
    expect(await revocationRows()).toEqual(revocations);
    return revoked;
  }

  it("starts from the configuration the constructor announced", async () => {
    const { deployment } = stack();
    const deployBlock = await marketplace().publicClient.getBlock({
      blockNumber: BigInt(deployment.startBlock),
    });
    protocolRow = {
      id: lower(deployment.address),
      authority: lower(authority.address),
      operator: lower(operator.address),
      feeRecipient: lower(feeRecipient.address),
      feeBasisPoints: 250,
      paused: false,
      totalFees: 0n,
      totalFeesWithdrawn: 0n,
    };
    expect(await protocolRows()).toEqual([protocolRow]);
    const atDeployment = {
      blockNumber: BigInt(deployment.startBlock),
      timestamp: deployBlock.timestamp,
      transactionHash: deployment.transactionHash,
    };
    operatorChanges.push({
      id: anyId,
      previousOperator: zeroAddress,
      operator: lower(operator.address),
      ...atDeployment,
    });
    expect(await operatorChangeRows()).toEqual(operatorChanges);
    feeChanges.push({
      id: anyId,
      previousFeeBasisPoints: 0,
      feeBasisPoints: 250,
      blockNumber: BigInt(deployment.startBlock),
      timestamp: deployBlock.timestamp,
      transactionHash: deployment.transactionHash,
    });
    expect(await feeChangeRows()).toEqual(feeChanges);
    expect(await db().select().from(listing)).toEqual([]);
    expect(await creatorRows()).toEqual([]);
  });

  it("lists agents of all three rental models for two creators", async () => {
    oneTime = await list(alice, "one-time", "one_time", ONE_TIME_PRICE);
    subscription = await list(alice, "subscription", "subscription", SUBSCRIPTION_PRICE);
    perQuery = await list(bob, "per-task", "per_query", TASK_PRICE);
    [oneTimeId, subscriptionId, perQueryId] = [oneTime.id, subscription.id, perQuery.id];
    const newCreator = { totalEarned: 0n, totalWithdrawn: 0n };
    aliceCreator = { ...newCreator, id: lower(alice.address), listingCount: 2 };
    bobCreator = { ...newCreator, id: lower(bob.address), listingCount: 1 };
    await expectAggregates();
  });

  it("updates price and metadata, keeping the publication time", async () => {
    const landed = await indexed(
      marketplace().as(alice).write.updateListing([oneTimeId, UPDATED_PRICE, UPDATED_URI]),
    );
    oneTime = {
      ...oneTime,
      price: UPDATED_PRICE,
      metadataUri: UPDATED_URI,
      updatedAt: landed.timestamp,
    };
    await expectAggregates();
  });

  it("pauses and reactivates a listing", async () => {
    const paused = await indexed(
      marketplace().as(alice).write.setListingActive([subscriptionId, false]),
    );
    subscription = { ...subscription, status: "paused", updatedAt: paused.timestamp };
    await expectAggregates();

    const reactivated = await indexed(
      marketplace().as(alice).write.setListingActive([subscriptionId, true]),
    );
    subscription = { ...subscription, status: "active", updatedAt: reactivated.timestamp };
    await expectAggregates();
  });

  it("sells one-time access: a permanent credential, escrow and fee booked", async () => {
    const landed = await indexed(
      marketplace().as(carol).write.purchaseOneTime([oneTimeId], { value: UPDATED_PRICE }),
    );
    carolOneTime = newCredentialRow(oneTime, carol.address, {
      timestamp: landed.timestamp,
      totalPaid: UPDATED_PRICE,
    });
    oneTime = { ...bookSale(oneTime, UPDATED_PRICE), credentialCount: 1 };
    const fee = feeOf(UPDATED_PRICE);
    await expectPurchased(carolOneTime, { amount: UPDATED_PRICE, fee, landed });
  });

  it("sells a subscription expiring 30 days after the purchase block", async () => {
    const landed = await indexed(
      marketplace()
        .as(dave)
        .write.purchaseSubscription([subscriptionId, THIRTY_DAYS], { value: SUBSCRIPTION_PRICE }),
    );
    daveSubscription = newCredentialRow(subscription, dave.address, {
      timestamp: landed.timestamp,
      totalPaid: SUBSCRIPTION_PRICE,
      expiresAt: landed.timestamp + THIRTY_DAYS,
    });
    subscription = { ...bookSale(subscription, SUBSCRIPTION_PRICE), credentialCount: 1 };
    const fee = feeOf(SUBSCRIPTION_PRICE);
    await expectPurchased(daveSubscription, { amount: SUBSCRIPTION_PRICE, fee, landed });
  });

  it("renews an active subscription from its expiry, and a lapsed one from the renewal", async () => {
    const ninetyDaysPrice = 3n * SUBSCRIPTION_PRICE;
    const whileActive = await indexed(
      marketplace()
        .as(dave)
        .write.renewSubscription([subscriptionId, NINETY_DAYS], { value: ninetyDaysPrice }),
    );
    const extendedExpiry = (daveSubscription.expiresAt ?? 0n) + NINETY_DAYS;
    daveSubscription = {
      ...daveSubscription,
      expiresAt: extendedExpiry,
      totalPaid: SUBSCRIPTION_PRICE + ninetyDaysPrice,
      updatedAt: whileActive.timestamp,
    };
    expect(await credentialRows(db(), subscriptionId, dave.address)).toEqual([daveSubscription]);

    await rpcRequest(stack().anvil.rpcUrl, "evm_increaseTime", [
      Number(extendedExpiry - whileActive.timestamp + DAY),
    ]);
    const afterExpiry = await indexed(
      marketplace()
        .as(dave)
        .write.renewSubscription([subscriptionId, THIRTY_DAYS], { value: SUBSCRIPTION_PRICE }),
    );
    expect(afterExpiry.timestamp).toBeGreaterThan(extendedExpiry);
    daveSubscription = {
      ...daveSubscription,
      expiresAt: afterExpiry.timestamp + THIRTY_DAYS,
      totalPaid: daveSubscription.totalPaid + SUBSCRIPTION_PRICE,
      updatedAt: afterExpiry.timestamp,
    };
    expect(await credentialRows(db(), subscriptionId, dave.address)).toEqual([daveSubscription]);

    subscription = bookSale(bookSale(subscription, ninetyDaysPrice), SUBSCRIPTION_PRICE);
    await expectAggregates();
    const renewal = { listingId: subscriptionId, buyer: lower(dave.address) };
    expect(await renewalRows()).toEqual([
      {
        ...renewal,
        id: anyId,
        amount: ninetyDaysPrice,
        fee: feeOf(ninetyDaysPrice),
        expiresAt: extendedExpiry,
        ...whileActive,
      },
      {
        ...renewal,
        id: anyId,
        amount: SUBSCRIPTION_PRICE,
        fee: feeOf(SUBSCRIPTION_PRICE),
        expiresAt: afterExpiry.timestamp + THIRTY_DAYS,
        ...afterExpiry,
      },
    ]);
  });

  it("opens a per-task balance without booking a sale", async () => {
    const deposit = 5n * TASK_PRICE;
    const landed = await indexed(
      marketplace().as(erin).write.purchasePerQuery([perQueryId, TASK_PRICE], { value: deposit }),
    );
    erinPerQuery = newCredentialRow(perQuery, erin.address, {
      timestamp: landed.timestamp,
      totalPaid: deposit,
      balance: deposit,
      agreedPrice: TASK_PRICE,
    });
    perQuery = { ...perQuery, credentialCount: 1 };
    await expectPurchased(erinPerQuery, { amount: deposit, fee: 0n, landed });
  });

  it("tops up a per-task balance", async () => {
    const topUp = 2n * TASK_PRICE;
    const landed = await indexed(
      marketplace().as(erin).write.topUpBalance([perQueryId, TASK_PRICE], { value: topUp }),
    );
    erinPerQuery = {
      ...erinPerQuery,
      balance: 7n * TASK_PRICE,
      totalPaid: 7n * TASK_PRICE,
      updatedAt: landed.timestamp,
    };
    expect(await credentialRows(db(), perQueryId, erin.address)).toEqual([erinPerQuery]);
    await expectAggregates();
    expect(await topUpRows()).toEqual([
      {
        id: anyId,
        listingId: perQueryId,
        buyer: lower(erin.address),
        amount: topUp,
        balance: 7n * TASK_PRICE,
        ...landed,
      },
    ]);
  });

  it("debits one task: balance down, the price split into escrow and fee", async () => {
    const landed = await indexed(
      marketplace()
        .as(authority)
        .write.consumeQuery([perQueryId, erin.address, 1001n, TASK_PRICE, true]),
    );
    erinPerQuery = {
      ...erinPerQuery,
      balance: 6n * TASK_PRICE,
      tasksConsumed: 1,
      updatedAt: landed.timestamp,
    };
    expect(await credentialRows(db(), perQueryId, erin.address)).toEqual([erinPerQuery]);
    perQuery = { ...bookSale(perQuery, TASK_PRICE), runCount: 1 };
    await expectAggregates();
    expect(await debitRows()).toEqual([
      {
        id: anyId,
        listingId: perQueryId,
        buyer: lower(erin.address),
        runId: 1001n,
        price: TASK_PRICE,
        fee: feeOf(TASK_PRICE),
        balance: 6n * TASK_PRICE,
        succeeded: true,
        ...landed,
      },
    ]);
    runs.push({
      id: anyId,
      listingId: perQueryId,
      runId: 1001n,
      succeeded: true,
      charged: true,
      ...landed,
    });
    expect(await runRows()).toEqual(runs);
  });

  it("debits a task that failed after its output reached the renter: charged, counted failed", async () => {
    const landed = await indexed(
      marketplace()
        .as(operator)
        .write.consumeQuery([perQueryId, erin.address, 1002n, TASK_PRICE, false]),
    );
    erinPerQuery = {
      ...erinPerQuery,
      balance: 5n * TASK_PRICE,
      tasksConsumed: 2,
      updatedAt: landed.timestamp,
    };
    expect(await credentialRows(db(), perQueryId, erin.address)).toEqual([erinPerQuery]);
    perQuery = { ...bookSale(perQuery, TASK_PRICE), runCount: 2, failedRunCount: 1 };
    await expectAggregates();
    expect((await debitRows()).find((row) => row.runId === 1002n)).toEqual({
      id: anyId,
      listingId: perQueryId,
      buyer: lower(erin.address),
      runId: 1002n,
      price: TASK_PRICE,
      fee: feeOf(TASK_PRICE),
      balance: 5n * TASK_PRICE,
      succeeded: false,
      ...landed,
    });
    runs.push({
      id: anyId,
      listingId: perQueryId,
      runId: 1002n,
      succeeded: false,
      charged: true,
      ...landed,
    });
    expect(await runRows()).toEqual(runs);
  });

  it("anchors uncharged runs' counts, ignoring unknown listings and a root anchored before", async () => {
    const unknownListing = seedOf("no such listing");
    const root = keccak256(toHex("receipts of the first uncharged runs"));
    const counts = [
      { listingId: oneTimeId, runs: 2, failed: 1 },
      { listingId: subscriptionId, runs: 1, failed: 0 },
      { listingId: unknownListing, runs: 3, failed: 3 },
    ];
    const landed = await indexed(marketplace().as(authority).write.settle([[], root, counts]));
    oneTime = { ...oneTime, runCount: 2, failedRunCount: 1 };
    subscription = { ...subscription, runCount: 1 };
    await expectAggregates();
    expect(await listingRows(db(), unknownListing)).toEqual([]);
    const anchored = counts.map((count) => ({ id: anyId, root, ...count, ...landed }));
    expect(await anchoredRows()).toEqual(anchored);
    expect(await marketplace().as(authority).read.anchoredAt([root])).toBe(landed.blockNumber);

    // The same root again, as a resend would carry it: skipped, nothing counted twice.
    await indexed(
      marketplace()
        .as(operator)
        .write.settle([[], root, [{ listingId: oneTimeId, runs: 5, failed: 5 }]]),
    );
    await expectAggregates();
    expect(await anchoredRows()).toEqual(anchored);
    expect(await marketplace().as(authority).read.anchoredAt([root])).toBe(landed.blockNumber);
    // Debits counted by `QueryConsumed` alone: no anchor touched `run_event`.
    expect(await runRows()).toEqual(runs);
  });

  it("revokes one-time access", async () => {
    const landed = await indexed(
      marketplace().as(alice).write.revokeAccess([oneTimeId, carol.address]),
    );
    carolOneTime = await expectRevoked(carolOneTime, landed, null);
    await expectAggregates();
  });

  it("revokes a per-task balance, which the renter then reclaims", async () => {
    const revoked = await indexed(
      marketplace().as(bob).write.revokePerQueryAccess([perQueryId, erin.address]),
    );
    erinPerQuery = await expectRevoked(erinPerQuery, revoked, 5n * TASK_PRICE);

    const reclaimed = await indexed(marketplace().as(erin).write.reclaimBalance([perQueryId]));
    erinPerQuery = { ...erinPerQuery, balance: 0n, updatedAt: reclaimed.timestamp };
    expect(await credentialRows(db(), perQueryId, erin.address)).toEqual([erinPerQuery]);
    await expectAggregates();
    withdrawals.push({
      id: anyId,
      kind: "reclaim",
      listingId: perQueryId,
      account: lower(erin.address),
      amount: 5n * TASK_PRICE,
      ...reclaimed,
    });
    expect(await withdrawalRows()).toEqual(withdrawals);
  });

  it("finding M-1: a renter asks its per-task balance back, then reclaims it after the delay", async () => {
    const deposit = 3n * TASK_PRICE;
    const bought = await indexed(
      marketplace().as(dave).write.purchasePerQuery([perQueryId, TASK_PRICE], { value: deposit }),
    );
    let davePerQuery = newCredentialRow(perQuery, dave.address, {
      timestamp: bought.timestamp,
      totalPaid: deposit,
      balance: deposit,
      agreedPrice: TASK_PRICE,
    });
    perQuery = { ...perQuery, credentialCount: perQuery.credentialCount + 1 };
    await expectPurchased(davePerQuery, { amount: deposit, fee: 0n, landed: bought });

    const exit = await indexed(marketplace().as(dave).write.requestExit([perQueryId]));
    const delay = await marketplace().as(dave).read.EXIT_DELAY();
    davePerQuery = {
      ...davePerQuery,
      exitReclaimableAt: exit.timestamp + delay,
      updatedAt: exit.timestamp,
    };
    expect(await credentialRows(db(), perQueryId, dave.address)).toEqual([davePerQuery]);

    await rpcRequest(stack().anvil.rpcUrl, "evm_increaseTime", [Number(delay)]);
    const reclaimed = await indexed(marketplace().as(dave).write.reclaimBalance([perQueryId]));
    davePerQuery = {
      ...davePerQuery,
      balance: 0n,
      exitReclaimableAt: null,
      updatedAt: reclaimed.timestamp,
    };
    expect(await credentialRows(db(), perQueryId, dave.address)).toEqual([davePerQuery]);
    await expectAggregates();
    withdrawals.push({
      id: anyId,
      kind: "reclaim",
      listingId: perQueryId,
      account: lower(dave.address),
      amount: deposit,
      ...reclaimed,
    });
    expect(await withdrawalRows()).toEqual(withdrawals);
  });

  it("finding L-7: empties and closes a paused listing in one transaction", async () => {
    const paused = await indexed(marketplace().as(bob).write.setListingActive([perQueryId, false]));
    perQuery = { ...perQuery, status: "paused", updatedAt: paused.timestamp };
    await expectAggregates();

    const escrow = perQuery.escrow;
    expect(escrow).toBeGreaterThan(0n);
    const closed = await indexed(marketplace().as(bob).write.withdrawAndClose([perQueryId]));
    perQuery = {
      ...perQuery,
      escrow: 0n,
      totalWithdrawn: perQuery.totalWithdrawn + escrow,
      status: "closed",
      updatedAt: closed.timestamp,
    };
    bobCreator = { ...bobCreator, totalWithdrawn: bobCreator.totalWithdrawn + escrow };
    await expectAggregates();
    withdrawals.push({
      id: anyId,
      kind: "earnings",
      listingId: perQueryId,
      account: lower(bob.address),
      amount: escrow,
      ...closed,
    });
    expect(await withdrawalRows()).toEqual(withdrawals);
  });

  it("withdraws earnings from escrow in parts, then closes the emptied listing", async () => {
    const escrow = oneTime.escrow;
    const firstPart = escrow / 3n;
    const first = await indexed(
      marketplace().as(alice).write.withdrawEarnings([oneTimeId, firstPart]),
    );
    oneTime = { ...oneTime, escrow: escrow - firstPart, totalWithdrawn: firstPart };
    aliceCreator = { ...aliceCreator, totalWithdrawn: firstPart };
    await expectAggregates();

    const rest = await indexed(
      marketplace()
        .as(alice)
        .write.withdrawEarnings([oneTimeId, escrow - firstPart]),
    );
    oneTime = { ...oneTime, escrow: 0n, totalWithdrawn: escrow };
    aliceCreator = { ...aliceCreator, totalWithdrawn: escrow };
    await expectAggregates();
    const earnings = { id: anyId, kind: "earnings", listingId: oneTimeId } as const;
    withdrawals.push(
      { ...earnings, account: lower(alice.address), amount: firstPart, ...first },
      { ...earnings, account: lower(alice.address), amount: escrow - firstPart, ...rest },
    );
    expect(await withdrawalRows()).toEqual(withdrawals);

    const closed = await indexed(marketplace().as(alice).write.closeListing([oneTimeId]));
    oneTime = { ...oneTime, status: "closed", updatedAt: closed.timestamp };
    await expectAggregates();
  });

  it("withdraws the fees accrued on the listed ids only", async () => {
    const collected = oneTime.accruedFees + subscription.accruedFees;
    const landed = await indexed(
      marketplace()
        .as(feeRecipient)
        .write.withdrawFees([[oneTimeId, subscriptionId]]),
    );
    oneTime = { ...oneTime, accruedFees: 0n };
    subscription = { ...subscription, accruedFees: 0n };
    protocolRow = { ...protocolRow, totalFeesWithdrawn: collected };
    await expectAggregates();
    withdrawals.push({
      id: anyId,
      kind: "fees",
      listingId: null,
      account: lower(feeRecipient.address),
      amount: collected,
      ...landed,
    });
    expect(await withdrawalRows()).toEqual(withdrawals);
  });

  it("finding: hot key split — follows each operator the authority names, from its block on", async () => {
    const asAuthority = marketplace().as(authority);
    const nextOperator = devAccount(10);
    /** Whether `account` may settle now: nothing to debit nor anchor, read at the latest block. */
    const maySettle = (account: typeof operator) =>
      marketplace()
        .as(account)
        .simulate.settle([[], zeroHash, []], { account })
        .then(
          () => true,
          (error: unknown) => contractErrorName(error),
        );

    const rotated = await indexed(asAuthority.write.setOperator([nextOperator.address]));
    protocolRow = { ...protocolRow, operator: lower(nextOperator.address) };
    await expectAggregates();
    operatorChanges.push({
      id: anyId,
      previousOperator: lower(operator.address),
      operator: lower(nextOperator.address),
      ...rotated,
    });
    expect(await operatorChangeRows()).toEqual(operatorChanges);
    expect(await maySettle(operator)).toBe("Unauthorized");
    expect(await maySettle(nextOperator)).toBe(true);

    const restored = await indexed(asAuthority.write.setOperator([operator.address]));
    protocolRow = { ...protocolRow, operator: lower(operator.address) };
    await expectAggregates();
    operatorChanges.push({
      id: anyId,
      previousOperator: lower(nextOperator.address),
      operator: lower(operator.address),
      ...restored,
    });
    expect(await operatorChangeRows()).toEqual(operatorChanges);
  });

  it("changes the protocol fee, fee recipient, pause switch and authority", async () => {
    const asAuthority = marketplace().as(authority);
    const feeChanged = await indexed(asAuthority.write.setFeeBasisPoints([500n]));
    protocolRow = { ...protocolRow, feeBasisPoints: 500 };
    expect(await protocolRows()).toEqual([protocolRow]);
    feeChanges.push({
      id: anyId,
      previousFeeBasisPoints: 250,
      feeBasisPoints: 500,
      ...feeChanged,
    });
    expect(await feeChangeRows()).toEqual(feeChanges);

    const newRecipient = devAccount(7);
    await indexed(asAuthority.write.setFeeRecipient([newRecipient.address]));
    protocolRow = { ...protocolRow, feeRecipient: lower(newRecipient.address) };
    expect(await protocolRows()).toEqual([protocolRow]);

    await indexed(asAuthority.write.setPaused([true]));
    expect(await protocolRows()).toEqual([{ ...protocolRow, paused: true }]);
    await indexed(asAuthority.write.setPaused([false]));
    expect(await protocolRows()).toEqual([protocolRow]);

    const newAuthority = devAccount(8);
    await indexed(asAuthority.write.transferAuthority([newAuthority.address]));
    protocolRow = { ...protocolRow, authority: lower(newAuthority.address) };
    await expectAggregates();
    expect(await feeChangeRows()).toEqual(feeChanges);
  });

  it("ends with escrow and accrued fees equal to the contract's, one event row per event", async () => {
    for (const row of [oneTime, subscription, perQuery]) {
      const [, , escrow, accruedFees] = await marketplace().as(alice).read.listings([row.id]);
      expect(await listingRows(db(), row.id)).toEqual([{ ...row, escrow, accruedFees }]);
    }
    expect(await purchaseRows()).toEqual(purchases);
    expect(await runRows()).toEqual(runs);
    expect(await withdrawalRows()).toEqual(withdrawals);
    expect(await feeChangeRows()).toEqual(feeChanges);
    expect(await renewalRows()).toHaveLength(2);
    expect(await topUpRows()).toHaveLength(1);
    expect(await debitRows()).toHaveLength(2);
    expect(await revocationRows()).toEqual(revocations);
  });
});

it("finding L-10: Ponder indexes as a role of its own, which owns its schemas and cannot read the money path", async () => {
  const { schema, viewsSchema } = stack().ponder;
  const admin = postgres(stack().postgres.databaseUrl, { max: 1, onnotice: () => {} });
  const asIndexer = postgres(
    await indexerDatabaseUrl(stack().postgres.databaseUrl, stack().ponder),
    {
      max: 1,
      onnotice: () => {},
    },
  );
  try {
    const owners = await admin<{ name: string; owner: string }[]>`
      SELECT nspname AS name, nspowner::regrole::text AS owner FROM pg_namespace
      WHERE nspname IN ${admin([schema, viewsSchema, "app"])} ORDER BY nspname`;
    expect(Object.fromEntries(owners.map(({ name, owner }) => [name, owner]))).toEqual({
      [schema]: INDEXER_ROLE,
      [viewsSchema]: INDEXER_ROLE,
      app: expect.not.stringMatching(INDEXER_ROLE),
    });
    const [connected] = await admin<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = ${INDEXER_ROLE}`;
    expect(connected?.n, "Ponder's connections").toBeGreaterThan(0);

    await expect(
      asIndexer`SELECT count(*) FROM ${asIndexer(viewsSchema)}.listing`,
    ).resolves.toHaveLength(1);
    for (const table of ["api_keys", "runs", "agent_secrets"]) {
      await expect(asIndexer`SELECT * FROM app.${asIndexer(table)} LIMIT 1`).rejects.toMatchObject({
        code: "42501",
      });
    }
  } finally {
    await Promise.all([admin.end(), asIndexer.end()]);
  }
});
