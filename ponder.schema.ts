import { index, onchainEnum, onchainTable, primaryKey } from "./lib/db/onchainTables.ts";
import { LISTING_STATUSES, RENTAL_MODELS } from "./lib/marketplace/vocabulary.ts";

// Times are Unix seconds (block timestamps); amounts are wei.

export const rentalModel = onchainEnum("rental_model", RENTAL_MODELS);
export const listingStatus = onchainEnum("listing_status", LISTING_STATUSES);
export const withdrawalKind = onchainEnum("withdrawal_kind", ["earnings", "fees", "reclaim"]);

// ─── Aggregates ─────────────────────────────────────────────────────────────

export const listing = onchainTable(
  "listing",
  (t) => ({
    /** The on-chain listing id: keccak256(creator, seed). */
    id: t.hex().primaryKey(),
    creator: t.hex().notNull(),
    rentalModel: rentalModel("rental_model").notNull(),
    /** Per purchase, per 30 days or per task, depending on the model. */
    price: t.bigint().notNull(),
    status: listingStatus("status").notNull(),
    metadataUri: t.text().notNull(),
    publishedAt: t.bigint().notNull(),
    updatedAt: t.bigint().notNull(),
    escrow: t.bigint().notNull(),
    accruedFees: t.bigint().notNull(),
    totalEarned: t.bigint().notNull(),
    totalWithdrawn: t.bigint().notNull(),
    credentialCount: t.integer().notNull(),
    runCount: t.integer().notNull(),
    failedRunCount: t.integer().notNull(),
  }),
  (table) => ({
    creatorIndex: index().on(table.creator),
    statusIndex: index().on(table.status),
    rentalModelIndex: index().on(table.rentalModel),
    priceIndex: index().on(table.price),
    publishedAtIndex: index().on(table.publishedAt),
  }),
);

export const credential = onchainTable(
  "credential",
  (t) => ({
    listingId: t.hex().notNull(),
    buyer: t.hex().notNull(),
    rentalModel: rentalModel("rental_model").notNull(),
    purchasedAt: t.bigint().notNull(),
    /** Subscriptions only. */
    expiresAt: t.bigint(),
    isRevoked: t.boolean().notNull(),
    /** Per-task only: the prepaid balance left. */
    balance: t.bigint().notNull(),
    /** Per-task only: the price per task agreed at the last deposit; a run costs at most this. */
    agreedPrice: t.bigint().notNull(),
    /** Per-task only: when the renter may reclaim the balance it asked back; null when no exit pends. */
    exitReclaimableAt: t.bigint(),
    totalPaid: t.bigint().notNull(),
    tasksConsumed: t.integer().notNull(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.listingId, table.buyer] }),
    buyerIndex: index().on(table.buyer, table.purchasedAt),
  }),
);

export const creator = onchainTable("creator", (t) => ({
  id: t.hex().primaryKey(),
  listingCount: t.integer().notNull(),
  totalEarned: t.bigint().notNull(),
  totalWithdrawn: t.bigint().notNull(),
}));

/** One row, keyed by the contract address. */
export const protocol = onchainTable("protocol", (t) => ({
  id: t.hex().primaryKey(),
  authority: t.hex().notNull(),
  /** The hot key that debits and logs runs; the zero address when the authority alone does. */
  operator: t.hex().notNull(),
  feeRecipient: t.hex().notNull(),
  feeBasisPoints: t.integer().notNull(),
  paused: t.boolean().notNull(),
  totalFees: t.bigint().notNull(),
  totalFeesWithdrawn: t.bigint().notNull(),
}));

// ─── Append-only events, for analytics ──────────────────────────────────────

export const purchaseEvent = onchainTable(
  "purchase_event",
  (t) => ({
    id: t.text().primaryKey(),
    listingId: t.hex().notNull(),
    buyer: t.hex().notNull(),
    rentalModel: rentalModel("rental_model").notNull(),
    amount: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    expiresAt: t.bigint(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({
    listingIndex: index().on(table.listingId, table.timestamp),
    buyerIndex: index().on(table.buyer),
  }),
);

export const renewalEvent = onchainTable(
  "renewal_event",
  (t) => ({
    id: t.text().primaryKey(),
    listingId: t.hex().notNull(),
    buyer: t.hex().notNull(),
    amount: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    expiresAt: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ listingIndex: index().on(table.listingId, table.timestamp) }),
);

export const topUpEvent = onchainTable(
  "top_up_event",
  (t) => ({
    id: t.text().primaryKey(),
    listingId: t.hex().notNull(),
    buyer: t.hex().notNull(),
    amount: t.bigint().notNull(),
    balance: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ listingIndex: index().on(table.listingId, table.timestamp) }),
);

export const debitEvent = onchainTable(
  "debit_event",
  (t) => ({
    id: t.text().primaryKey(),
    listingId: t.hex().notNull(),
    buyer: t.hex().notNull(),
    runId: t.bigint().notNull(),
    price: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    balance: t.bigint().notNull(),
    /** The run's outcome: a run that failed after its output reached the renter is charged too. */
    succeeded: t.boolean().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ listingIndex: index().on(table.listingId, table.timestamp) }),
);

/** Every debited per-task run (`QueryConsumed`); the chain counts the others in `anchoredRunCount`. */
export const runEvent = onchainTable(
  "run_event",
  (t) => ({
    id: t.text().primaryKey(),
    listingId: t.hex().notNull(),
    runId: t.bigint().notNull(),
    succeeded: t.boolean().notNull(),
    charged: t.boolean().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ listingIndex: index().on(table.listingId, table.timestamp) }),
);

/**
 * One listing's runs counted by an anchor of receipts (`RunsAnchored`): the finished runs no debit
 * counted, so that `runEvent` and these rows together hold every run the listing's figures count.
 */
export const anchoredRunCount = onchainTable(
  "anchored_run_count",
  (t) => ({
    id: t.text().primaryKey(),
    root: t.hex().notNull(),
    listingId: t.hex().notNull(),
    runs: t.integer().notNull(),
    failed: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ listingIndex: index().on(table.listingId, table.timestamp) }),
);

export const revocationEvent = onchainTable(
  "revocation_event",
  (t) => ({
    id: t.text().primaryKey(),
    listingId: t.hex().notNull(),
    buyer: t.hex().notNull(),
    /** Per-task only: the unspent balance left for the renter to reclaim. */
    balance: t.bigint(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ listingIndex: index().on(table.listingId, table.timestamp) }),
);

export const withdrawalEvent = onchainTable(
  "withdrawal_event",
  (t) => ({
    id: t.text().primaryKey(),
    kind: withdrawalKind("kind").notNull(),
    /** Null for fee withdrawals, which span listings. */
    listingId: t.hex(),
    account: t.hex().notNull(),
    amount: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ accountIndex: index().on(table.account, table.timestamp) }),
);

export const feeChangeEvent = onchainTable("fee_change_event", (t) => ({
  id: t.text().primaryKey(),
  previousFeeBasisPoints: t.integer().notNull(),
  feeBasisPoints: t.integer().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
  transactionHash: t.hex().notNull(),
}));

/** Every operator the authority named, so a debit can be traced to the key that held the role. */
export const operatorChangeEvent = onchainTable("operator_change_event", (t) => ({
  id: t.text().primaryKey(),
  previousOperator: t.hex().notNull(),
  operator: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
  transactionHash: t.hex().notNull(),
}));
