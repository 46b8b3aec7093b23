import { ponder } from "ponder:registry";
import { anchoredRunCount, creator, listing, withdrawalEvent } from "ponder:schema";
import { listingStatusName, rentalModelName } from "../lib/marketplace/vocabulary.ts";

ponder.on("ServiceMarketplace:ListingCreated", async ({ event, context }) => {
  const { listingId, creator: creatorAddress, model, price, metadataUri } = event.args;
  const timestamp = event.block.timestamp;
  await context.db.insert(listing).values({
    id: listingId,
    creator: creatorAddress,
    rentalModel: rentalModelName(model),
    price,
    status: "active",
    metadataUri,
    publishedAt: timestamp,
    updatedAt: timestamp,
    escrow: 0n,
    accruedFees: 0n,
    totalEarned: 0n,
    totalWithdrawn: 0n,
    credentialCount: 0,
    runCount: 0,
    failedRunCount: 0,
  });
  await context.db
    .insert(creator)
    .values({ id: creatorAddress, listingCount: 1, totalEarned: 0n, totalWithdrawn: 0n })
    .onConflictDoUpdate((row) => ({ listingCount: row.listingCount + 1 }));
});

ponder.on("ServiceMarketplace:ListingUpdated", async ({ event, context }) => {
  const { listingId, price, metadataUri } = event.args;
  await context.db
    .update(listing, { id: listingId })
    .set({ price, metadataUri, updatedAt: event.block.timestamp });
});

ponder.on("ServiceMarketplace:ListingStatusChanged", async ({ event, context }) => {
  await context.db
    .update(listing, { id: event.args.listingId })
    .set({ status: listingStatusName(event.args.status), updatedAt: event.block.timestamp });
});

ponder.on("ServiceMarketplace:EarningsWithdrawn", async ({ event, context }) => {
  const { listingId, creator: creatorAddress, amount } = event.args;
  await context.db.update(listing, { id: listingId }).set((row) => ({
    escrow: row.escrow - amount,
    totalWithdrawn: row.totalWithdrawn + amount,
  }));
  await context.db
    .update(creator, { id: creatorAddress })
    .set((row) => ({ totalWithdrawn: row.totalWithdrawn + amount }));
  await context.db.insert(withdrawalEvent).values({
    id: event.id,
    kind: "earnings",
    listingId,
    account: creatorAddress,
    amount,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

ponder.on("ServiceMarketplace:RunsAnchored", async ({ event, context }) => {
  const { root, counts } = event.args;
  for (const [index, { listingId, runs, failed }] of counts.entries()) {
    // The operator may count runs against any id; only listings that exist keep a count.
    const existing = await context.db.find(listing, { id: listingId });
    if (existing) {
      await context.db.update(listing, { id: listingId }).set((row) => ({
        runCount: row.runCount + runs,
        failedRunCount: row.failedRunCount + failed,
      }));
    }
    await context.db.insert(anchoredRunCount).values({
      id: `${event.id}-${index}`,
      root,
      listingId,
      runs,
      failed,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
      transactionHash: event.transaction.hash,
    });
  }
});
