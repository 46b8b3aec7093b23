import { ponder } from "ponder:registry";
import {
  feeChangeEvent,
  listing,
  operatorChangeEvent,
  protocol,
  withdrawalEvent,
} from "ponder:schema";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

// The constructor announces authority, operator, fee recipient and fee as events, so the row exists from the
// deployment block on; the insert keeps each handler correct whichever of them comes first.
const initialProtocol = {
  authority: ZERO_ADDRESS,
  operator: ZERO_ADDRESS,
  feeRecipient: ZERO_ADDRESS,
  feeBasisPoints: 0,
  paused: false,
  totalFees: 0n,
  totalFeesWithdrawn: 0n,
} as const;

ponder.on("ServiceMarketplace:AuthorityTransferred", async ({ event, context }) => {
  const { authority } = event.args;
  await context.db
    .insert(protocol)
    .values({ ...initialProtocol, id: event.log.address, authority })
    .onConflictDoUpdate({ authority });
});

ponder.on("ServiceMarketplace:OperatorChanged", async ({ event, context }) => {
  const { operator } = event.args;
  await context.db
    .insert(protocol)
    .values({ ...initialProtocol, id: event.log.address, operator })
    .onConflictDoUpdate({ operator });
  await context.db.insert(operatorChangeEvent).values({
    id: event.id,
    previousOperator: event.args.previousOperator,
    operator,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

ponder.on("ServiceMarketplace:FeeRecipientUpdated", async ({ event, context }) => {
  const { recipient } = event.args;
  await context.db
    .insert(protocol)
    .values({ ...initialProtocol, id: event.log.address, feeRecipient: recipient })
    .onConflictDoUpdate({ feeRecipient: recipient });
});

ponder.on("ServiceMarketplace:FeeBasisPointsUpdated", async ({ event, context }) => {
  const feeBasisPoints = Number(event.args.feeBasisPoints);
  await context.db
    .insert(protocol)
    .values({ ...initialProtocol, id: event.log.address, feeBasisPoints })
    .onConflictDoUpdate({ feeBasisPoints });
  await context.db.insert(feeChangeEvent).values({
    id: event.id,
    previousFeeBasisPoints: Number(event.args.previousFeeBasisPoints),
    feeBasisPoints,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

ponder.on("ServiceMarketplace:PausedSet", async ({ event, context }) => {
  await context.db.update(protocol, { id: event.log.address }).set({ paused: event.args.paused });
});

ponder.on("ServiceMarketplace:FeesWithdrawn", async ({ event, context }) => {
  const { recipient, amount, listingIds } = event.args;
  for (const id of new Set(listingIds)) {
    if (await context.db.find(listing, { id })) {
      await context.db.update(listing, { id }).set({ accruedFees: 0n });
    }
  }
  await context.db
    .update(protocol, { id: event.log.address })
    .set((row) => ({ totalFeesWithdrawn: row.totalFeesWithdrawn + amount }));
  await context.db.insert(withdrawalEvent).values({
    id: event.id,
    kind: "fees",
    listingId: null,
    account: recipient,
    amount,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});
