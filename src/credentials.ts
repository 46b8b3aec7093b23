import { ponder } from "ponder:registry";
import {
  credential,
  debitEvent,
  listing,
  purchaseEvent,
  renewalEvent,
  revocationEvent,
  runEvent,
  topUpEvent,
  withdrawalEvent,
} from "ponder:schema";
import { isAddressEqual } from "viem";
import { rentalModelName } from "../lib/marketplace/vocabulary.ts";
import { creditSale } from "./creditSale.ts";

ponder.on("ServiceMarketplace:AccessPurchased", async ({ event, context }) => {
  const { listingId, buyer, model, amount, fee, expiresAt } = event.args;
  const rentalModel = rentalModelName(model);
  const timestamp = event.block.timestamp;
  await openCredential(context, {
    listingId,
    buyer,
    rentalModel,
    purchasedAt: timestamp,
    expiresAt: expiresAt === 0 ? null : BigInt(expiresAt),
    balance: 0n,
    agreedPrice: 0n,
    totalPaid: amount,
  });
  await creditSale(context, { listingId, amount, fee });
  await context.db.insert(purchaseEvent).values({
    id: event.id,
    listingId,
    buyer,
    rentalModel,
    amount,
    fee,
    expiresAt: expiresAt === 0 ? null : BigInt(expiresAt),
    blockNumber: event.block.number,
    timestamp,
    transactionHash: event.transaction.hash,
  });
});

ponder.on("ServiceMarketplace:SubscriptionRenewed", async ({ event, context }) => {
  const { listingId, buyer, amount, fee, expiresAt } = event.args;
  const timestamp = event.block.timestamp;
  await context.db.update(credential, { listingId, buyer }).set((row) => ({
    expiresAt: BigInt(expiresAt),
    totalPaid: row.totalPaid + amount,
    updatedAt: timestamp,
  }));
  await creditSale(context, { listingId, amount, fee });
  await context.db.insert(renewalEvent).values({
    id: event.id,
    listingId,
    buyer,
    amount,
    fee,
    expiresAt: BigInt(expiresAt),
    blockNumber: event.block.number,
    timestamp,
    transactionHash: event.transaction.hash,
  });
});

ponder.on("ServiceMarketplace:PerQueryPurchased", async ({ event, context }) => {
  const { listingId, buyer, amount, agreedPrice } = event.args;
  const timestamp = event.block.timestamp;
  await openCredential(context, {
    listingId,
    buyer,
    rentalModel: "per_query",
    purchasedAt: timestamp,
    expiresAt: null,
    balance: amount,
    agreedPrice,
    totalPaid: amount,
  });
  // A deposit is the renter's balance, not a sale: fee and share move when a task is debited.
  await context.db.insert(purchaseEvent).values({
    id: event.id,
    listingId,
    buyer,
    rentalModel: "per_query",
    amount,
    fee: 0n,
    expiresAt: null,
    blockNumber: event.block.number,
    timestamp,
    transactionHash: event.transaction.hash,
  });
});

ponder.on("ServiceMarketplace:BalanceToppedUp", async ({ event, context }) => {
  const { listingId, buyer, amount, balance, agreedPrice } = event.args;
  const timestamp = event.block.timestamp;
  // A deposit ends a pending exit: the renter stays.
  await context.db.update(credential, { listingId, buyer }).set((row) => ({
    balance,
    agreedPrice,
    exitReclaimableAt: null,
    totalPaid: row.totalPaid + amount,
    updatedAt: timestamp,
  }));
  await context.db.insert(topUpEvent).values({
    id: event.id,
    listingId,
    buyer,
    amount,
    balance,
    blockNumber: event.block.number,
    timestamp,
    transactionHash: event.transaction.hash,
  });
});

ponder.on("ServiceMarketplace:QueryConsumed", async ({ event, context }) => {
  const { listingId, buyer, runId, price, fee, balance, succeeded } = event.args;
  const timestamp = event.block.timestamp;
  await context.db.update(credential, { listingId, buyer }).set((row) => ({
    balance,
    tasksConsumed: row.tasksConsumed + 1,
    updatedAt: timestamp,
  }));
  // A creator's runs of its own listing are not counted: they would buy it run_count and success_rate.
  // A debited run may have failed (charged because its output reached the renter): counted failed.
  await context.db.update(listing, { id: listingId }).set((row) => {
    const counted = isAddressEqual(row.creator, buyer) ? 0 : 1;
    return {
      runCount: row.runCount + counted,
      failedRunCount: row.failedRunCount + (succeeded ? 0 : counted),
    };
  });
  await creditSale(context, { listingId, amount: price, fee });
  const where = {
    blockNumber: event.block.number,
    timestamp,
    transactionHash: event.transaction.hash,
  };
  await context.db
    .insert(debitEvent)
    .values({ id: event.id, listingId, buyer, runId, price, fee, balance, succeeded, ...where });
  await context.db
    .insert(runEvent)
    .values({ id: event.id, listingId, runId, succeeded, charged: true, ...where });
});

ponder.on("ServiceMarketplace:AccessRevoked", async ({ event, context }) => {
  const { listingId, buyer } = event.args;
  await revoke(context, event, { listingId, buyer, balance: null });
});

ponder.on("ServiceMarketplace:PerQueryAccessRevoked", async ({ event, context }) => {
  const { listingId, buyer, balance } = event.args;
  await revoke(context, event, { listingId, buyer, balance });
});

ponder.on("ServiceMarketplace:ExitRequested", async ({ event, context }) => {
  const { listingId, buyer, reclaimableAt } = event.args;
  await context.db
    .update(credential, { listingId, buyer })
    .set({ exitReclaimableAt: BigInt(reclaimableAt), updatedAt: event.block.timestamp });
});

ponder.on("ServiceMarketplace:BalanceReclaimed", async ({ event, context }) => {
  const { listingId, buyer, amount } = event.args;
  // A reclaim ends an exit: the credential stays, empty, and a deposit opens it again.
  await context.db.update(credential, { listingId, buyer }).set((row) => ({
    balance: row.balance - amount,
    exitReclaimableAt: null,
    updatedAt: event.block.timestamp,
  }));
  await context.db.insert(withdrawalEvent).values({
    id: event.id,
    kind: "reclaim",
    listingId,
    account: buyer,
    amount,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

/** A new credential of any model, counted on its listing. */
async function openCredential(
  context: Parameters<typeof creditSale>[0],
  opened: Pick<
    typeof credential.$inferInsert,
    | "listingId"
    | "buyer"
    | "rentalModel"
    | "purchasedAt"
    | "expiresAt"
    | "balance"
    | "agreedPrice"
    | "totalPaid"
  >,
) {
  await context.db.insert(credential).values({
    ...opened,
    isRevoked: false,
    exitReclaimableAt: null,
    tasksConsumed: 0,
    updatedAt: opened.purchasedAt,
  });
  await context.db
    .update(listing, { id: opened.listingId })
    .set((row) => ({ credentialCount: row.credentialCount + 1 }));
}

type RevocationEvent = {
  id: string;
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: `0x${string}` };
};

async function revoke(
  context: Parameters<typeof creditSale>[0],
  event: RevocationEvent,
  revocation: { listingId: `0x${string}`; buyer: `0x${string}`; balance: bigint | null },
) {
  const { listingId, buyer, balance } = revocation;
  await context.db
    .update(credential, { listingId, buyer })
    .set({ isRevoked: true, updatedAt: event.block.timestamp });
  await context.db.insert(revocationEvent).values({
    id: event.id,
    listingId,
    buyer,
    balance,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
}
