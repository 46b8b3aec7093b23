// The `app` schema, owned by the API and the workers (the indexer owns the projections, and its
// supervisor the one row of `indexer_progress` per views schema).
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { Hex } from "viem";
import type { Receipt } from "../../sdk/src/receipts/receiptTypes.ts";
import type { JobError } from "../jobs/jobError.ts";
import type { JobResult } from "../jobs/jobResult.ts";
import type { DeliveryStatus, WebhookEvent } from "../webhooks/webhookEvents.ts";

export const appSchema = pgSchema("app");

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

export const apiKeys = appSchema.table(
  "api_keys",
  {
    id: text().primaryKey(),
    wallet: text().notNull(),
    label: text().notNull(),
    /** SHA-256 of the key: the key itself is shown once and never stored. */
    keyHash: text().notNull().unique(),
    /** The prefix and first characters, enough to tell keys apart in a list. */
    keyPreview: text().notNull(),
    /** What the key may do: `run`, `read`, `create` (`lib/auth/apiKeyScopes.ts`). */
    scopes: text().array().notNull(),
    /** At most this much wei a UTC day on the per-task runs it starts; null: no cap. */
    dailySpendCapWei: numeric({ precision: 78, scale: 0 }),
    /** The on-chain ids of the only listings it may run; null: any. */
    allowedListings: text().array(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (table) => [index().on(table.wallet, table.createdAt)],
);

export const authChallenges = appSchema.table(
  "auth_challenges",
  {
    challenge: text().primaryKey(),
    wallet: text().notNull(),
    /** Who asked for it (`api/http/requester.ts`): its unused challenges for a wallet are its own budget. */
    requester: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (table) => [index().on(table.expiresAt), index().on(table.wallet, table.requester)],
);

/** A registered agent's public face; its private part lives elsewhere, encrypted. */
export const agents = appSchema.table(
  "agents",
  {
    agentId: text().primaryKey(),
    /** The on-chain listing id the creator's `createListing` produces. */
    onChainListingId: text().notNull().unique(),
    creator: text().notNull(),
    title: text().notNull(),
    description: text().notNull(),
    category: text().notNull(),
    sampleOutput: jsonb().$type<string[]>().notNull(),
    creatorDisplayName: text().notNull(),
    metadataUri: text().notNull(),
    publicManifest: jsonb().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    searchDocument: tsvector().generatedAlwaysAs(
      sql`setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description), 'B') || setweight(to_tsvector('english', creator_display_name || ' ' || category), 'C')`,
    ),
    /** What a query with a typo is matched against, by trigram word similarity (pg_trgm). */
    searchNames: text().generatedAlwaysAs(
      sql`title || ' ' || creator_display_name || ' ' || category`,
    ),
  },
  (table) => [
    index().using("gin", table.searchDocument),
    index("agents_search_names_index").using("gin", sql`${table.searchNames} gin_trgm_ops`),
    index().on(table.category),
    index().on(table.creator),
  ],
);

/**
 * Fixed one-minute windows per subject, shared by every API process, which lease their allowance in
 * blocks (`app.lease_rate_limit`, docs/decisions.md "Rate limits across processes").
 */
export const rateLimitWindows = appSchema.table(
  "rate_limit_windows",
  {
    subject: text().notNull(),
    windowStart: bigint({ mode: "number" }).notNull(),
    /** Units handed to processes in this window, spent or not; never above the limit. */
    granted: integer().notNull(),
    /** Units of open blocks not spent at once: at most this many may lie unused in processes. */
    outstanding: integer().notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.subject, table.windowStart] })],
);

const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });

/**
 * jsonb read back as stored. postgres.js parses jsonb already, and drizzle's `jsonb()` parses a
 * string value once more: a text output such as `"42"` or `"{}"` came back as a number or an object.
 */
const storedJson = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "jsonb",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => value,
});

export type JobStatus = "queued" | "completed" | "failed";

/** Asynchronous work a wallet asked for; the bus carries only the id. */
export const jobs = appSchema.table(
  "jobs",
  {
    id: text().primaryKey(),
    wallet: text().notNull(),
    kind: text().$type<"registration" | "version">().notNull(),
    status: text().$type<JobStatus>().notNull(),
    idempotencyKey: text(),
    /** SHA-256 of the request body, to tell a retry from a different request under the same key. */
    requestHash: text().notNull(),
    /** The sealed request (it holds the prompt and vendor credentials); dropped once processed. */
    request: bytea(),
    /** Which sealing key sealed `request` (`sealingKeyId`); null once it is dropped, or from before ids. */
    sealingKeyId: text(),
    result: jsonb().$type<JobResult>(),
    error: jsonb().$type<JobError>(),
    /** When the bus took the job; null means the outbox relay still has to publish it. */
    publishedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex().on(table.wallet, table.idempotencyKey),
    index().on(table.status, table.publishedAt),
  ],
);

/** Public manifests by content id: what a `metadata_uri` points to, byte for byte. */
export const manifests = appSchema.table("manifests", {
  cid: text().primaryKey(),
  content: bytea().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** An agent's private part (prompt, endpoints, vendor credentials), sealed to its listing. */
export const agentSecrets = appSchema.table("agent_secrets", {
  onChainListingId: text().primaryKey(),
  sealed: bytea().notNull(),
  /** Which sealing key sealed it (`sealingKeyId`); null for a row sealed before ids were kept. */
  sealingKeyId: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * Every version of a registered agent, the first included, by the content id of its public manifest:
 * the agent row shows the one its listing's on-chain `metadata_uri` names (`switchListedVersions`).
 */
export const agentVersions = appSchema.table(
  "agent_versions",
  {
    /** `<on-chain listing id>/<content id>`: what `sealed` is sealed to. */
    id: text().primaryKey(),
    onChainListingId: text().notNull(),
    metadataUri: text().notNull(),
    publicManifest: jsonb().notNull(),
    /**
     * The version's private part, sealed to `id`; null for the version registered with the agent,
     * whose private part is the listing's row in `agent_secrets`.
     */
    sealed: bytea(),
    sealingKeyId: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex().on(table.onChainListingId, table.metadataUri)],
);

export type RunStatus = "waiting" | "queued" | "running" | "completed" | "failed";
/** Where a run's money stands; see docs/execution.md. */
export type RunCharge = "none" | "reserved" | "debit_pending" | "debited" | "released" | "refused";
export type RunPriority = "standard" | "priority";

/** What a renter asked a run to do; dropped once the run finishes. */
export type RunRequest = {
  task: string;
  input?: string | Record<string, unknown>;
  inputUri?: string;
  timeoutSeconds: number;
};

/** One task run; the source of truth for its state and its money (docs/execution.md). */
export const runs = appSchema.table(
  "runs",
  {
    id: text().primaryKey(),
    /** The id the contract logs and debits: `epoch << 64 | seq` (see `runIdEpoch`). */
    onChainRunId: numeric({ precision: 78, scale: 0 }).notNull().unique(),
    wallet: text().notNull(),
    onChainListingId: text().notNull(),
    rentalModel: text().$type<"one_time" | "subscription" | "per_query">().notNull(),
    priority: text().$type<RunPriority>().notNull(),
    status: text().$type<RunStatus>().notNull(),
    charge: text().$type<RunCharge>().notNull(),
    /** Per-task: the price held against the balance at admission, in wei. */
    reservedWei: numeric({ precision: 78, scale: 0 }).notNull().default("0"),
    /** What was debited, in wei; 0 unless `charge` is `debited`. */
    costWei: numeric({ precision: 78, scale: 0 }).notNull().default("0"),
    idempotencyKey: text(),
    /** The API key that started it, whose daily spend cap counts it; null for a wallet token's. */
    apiKeyId: text(),
    /** SHA-256 of the request, to tell a retry from a different request under the same key. */
    requestHash: text().notNull(),
    request: jsonb().$type<RunRequest>(),
    /** The output, or a cut copy of it within RUN_OUTPUT_STORE_BYTES (`lib/runLedger/storedOutput.ts`). */
    output: storedJson(),
    /** Hex SHA-256 of the whole output's JSON text, when `output` holds a cut copy; else null. */
    outputSha256: text(),
    /** `output` holds a cut copy: the start of the output, as a string. */
    outputTruncated: boolean().notNull().default(false),
    /** Why a run failed, for its renter; never holds a secret. */
    failure: text(),
    durationMs: integer(),
    /** While `running`: until when its worker vouches for it. */
    leaseUntil: timestamp({ withTimezone: true }),
    debitTx: text(),
    debitBlock: bigint({ mode: "bigint" }),
    /** The chain's head when the run's debit was first submitted: no debit of it is in an earlier block. */
    debitSubmittedBlock: bigint({ mode: "bigint" }),
    /**
     * Settlement could not tell whether the chain debited this run: set aside, still `debit_pending`
     * with its `debit_tx`, until an operator decides (docs/execution.md, "Settlement").
     */
    quarantinedAt: timestamp({ withTimezone: true }),
    /** Why it was set aside, for the operator. */
    quarantineReason: text(),
    /** The chain counts the run: its debit's `QueryConsumed`, or the counts of the anchor holding it. */
    logged: boolean().notNull().default(false),
    /** What its receipt says beyond the row's own columns, gathered as it is admitted and ended. */
    receiptFacts: jsonb().$type<ReceiptFacts>(),
    /** Its receipt as anchored (docs/receipts.md): written once, with `anchorRoot`, never changed. */
    receipt: jsonb().$type<Receipt>(),
    /** The Merkle root of the batch its receipt is anchored in (`anchors`), and the leaf's proof. */
    anchorRoot: text(),
    anchorProof: jsonb().$type<Hex[]>(),
    /**
     * The W3C `traceparent` of the request that admitted it, while tracing is on: its publish, its
     * worker and its settlement continue that trace (lib/tracing/). Null with tracing off.
     */
    traceParent: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp({ withTimezone: true }),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex().on(table.wallet, table.idempotencyKey),
    index().on(table.onChainListingId, table.status),
    index().on(table.onChainListingId, table.wallet, table.charge),
    // Run history, newest first, a renter's (`GET /v1/runs`) and a listing's (its creator's view).
    index().on(table.wallet, table.createdAt, table.id),
    index().on(table.onChainListingId, table.createdAt, table.id),
    // A capped key's spend today, summed at each of its admissions.
    index().on(table.apiKeyId, table.createdAt).where(sql`${table.apiKeyId} is not null`),
    index().on(table.charge),
    index().on(table.status, table.leaseUntil),
    index().on(table.finishedAt).where(sql`${table.anchorRoot} is null`),
    index().on(table.anchorRoot),
    // Outputs past RUN_OUTPUT_RETENTION_DAYS are dropped oldest first; rows already dropped are not in it.
    index("runs_output_retention_index")
      .on(table.finishedAt)
      .where(sql`${table.output} is not null`),
    check(
      "runs_output_sha256_iff_truncated",
      sql`(${table.outputSha256} is not null) = ${table.outputTruncated}`,
    ),
  ],
);

export type RunRow = typeof runs.$inferSelect;

/** A run's receipt facts that its row holds nowhere else (hex SHA-256 digests, docs/receipts.md). */
export type ReceiptFacts = {
  task_sha256?: Hex;
  input_sha256?: Hex;
  output_sha256?: Hex;
  manifest_cid?: string;
  vendor?: string;
  model?: string;
  endpoint_sha256?: Hex;
  input_tokens?: number;
  output_tokens?: number;
};

/**
 * A batch of finished runs' receipts, anchored on-chain by its Merkle root with the runs the chain is
 * to count (`counts`). `pending` from when its runs are assigned to it until the chain holds the root.
 */
export const anchors = appSchema.table("anchors", {
  root: text().primaryKey(),
  counts: jsonb().$type<AnchorCount[]>().notNull(),
  status: text().$type<"pending" | "anchored">().notNull(),
  /** The last transaction sent with it; once anchored, the one that anchored it. */
  tx: text(),
  block: bigint({ mode: "bigint" }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** One listing's runs an anchor makes the chain count (`RunCount` in the contract). */
export type AnchorCount = { listingId: Hex; runs: number; failed: number };

/** Sequence behind on-chain run ids, and the random epoch of this database they start from. */
export const runSequence = appSchema.sequence("run_sequence");
export const runIdEpoch = appSchema.table("run_id_epoch", {
  /** One row; its `epoch` fills the high bits of every on-chain run id of this database. */
  singleton: boolean().primaryKey().default(true),
  epoch: bigint({ mode: "bigint" }).notNull(),
});

/** A creator's execution rate limit for its listing, per credential (wallet and listing). */
export const executionLimits = appSchema.table("execution_limits", {
  onChainListingId: text().primaryKey(),
  requestsPerMinute: integer().notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export type ToolCallOutcome = "ok" | "refused" | "failed";

/**
 * Every call a declarative agent's model asked of a built-in tool, refused ones too (docs/tools.md).
 * It holds the call's accounting, never its arguments or what the tool read.
 */
export const runToolCalls = appSchema.table(
  "run_tool_calls",
  {
    runId: text().notNull(),
    /** 1 for the run's first call, in the order the calls were asked. */
    sequence: integer().notNull(),
    /** The tool the model named; `(invalid name)` when that was not a possible tool name. */
    tool: text().notNull(),
    /** The manifest's scope for the tool; null when the manifest does not name it. */
    scope: text().$type<"read_only" | "input_only" | "repo_scoped">(),
    outcome: text().$type<ToolCallOutcome>().notNull(),
    /** Why it was refused or failed, in the tool's own words; never a secret nor what it read. */
    reason: text(),
    /** The arguments' size, as the model sent them. */
    argumentBytes: integer().notNull(),
    /** The size of what the model read back. */
    resultBytes: integer().notNull(),
    /** What the call received from outside (response bodies), counted against the run's budget. */
    outboundBytes: integer().notNull(),
    durationMs: integer().notNull(),
    calledAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.sequence] })],
);

/** A renter's review of a listing: one per wallet and listing, edited in place. */
export const reviews = appSchema.table(
  "reviews",
  {
    id: text().primaryKey(),
    onChainListingId: text().notNull(),
    /** Lowercase, as `app.runs` keeps wallets. */
    wallet: text().notNull(),
    /** 1 to 5. */
    rating: integer().notNull(),
    text: text().notNull(),
    /** The listing creator's one reply. */
    reply: text(),
    repliedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** The last write of its rating or text: pages list reviews by it, newest first. */
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex().on(table.onChainListingId, table.wallet),
    index().on(table.onChainListingId, table.updatedAt),
  ],
);

/**
 * Each reviewed listing's ratings, kept with its reviews in the same transaction, so that search
 * filters and sorts on them without aggregating reviews.
 */
export const listingRatings = appSchema.table("listing_ratings", {
  onChainListingId: text().primaryKey(),
  ratingSum: integer().notNull(),
  reviewCount: integer().notNull(),
  /** The average, 0 without reviews; a division of two integers, so exact to the double. */
  rating: doublePrecision().generatedAlwaysAs(
    sql`case when review_count = 0 then 0 else rating_sum::float8 / review_count end`,
  ),
});

/**
 * Where the indexer of each views schema stands against the chain, written by its supervisor
 * (`indexer/`) at every check and read by the API to say how current its projections are.
 */
export const indexerProgress = appSchema.table("indexer_progress", {
  viewsSchema: text().primaryKey(),
  /** The last block the projections include, as Ponder last said; null before it first answered. */
  indexedBlock: bigint({ mode: "bigint" }),
  /** The chain's head at the check; null while the node does not answer. */
  chainHead: bigint({ mode: "bigint" }),
  /** Since when the head has been past the indexed block; null when caught up. */
  behindSince: timestamp({ withTimezone: true }),
  checkedAt: timestamp({ withTimezone: true }).notNull(),
});

/**
 * A wallet's webhook endpoint: where the events it subscribed to are delivered (docs/webhooks.md).
 * Its signing secret is sealed to its id; the wallet reads it once, in the answer that created it.
 */
export const webhookEndpoints = appSchema.table(
  "webhook_endpoints",
  {
    id: text().primaryKey(),
    /** Lowercase, as `app.runs` keeps wallets. */
    wallet: text().notNull(),
    url: text().notNull(),
    events: text().array().$type<WebhookEvent[]>().notNull(),
    /** The `whsec_…` secret, sealed to `id`. */
    secret: bytea().notNull(),
    /** Which sealing key sealed `secret` (`sealingKeyId`). */
    sealingKeyId: text().notNull(),
    /** Events not enqueued for it because it already had as many deliveries pending as it may. */
    droppedEvents: integer().notNull().default(0),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index().on(table.wallet, table.createdAt)],
);

/**
 * One event to one endpoint, until it is delivered or given up: its `id` is the `webhook-id` of
 * every attempt. Enqueued only by `app.enqueue_webhook` (migration 0019), never twice for one
 * endpoint and `event_key`.
 */
export const webhookDeliveries = appSchema.table(
  "webhook_deliveries",
  {
    /** `msg_` and 24 hex digits, made by the database. */
    id: text()
      .primaryKey()
      .default(sql`('msg_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24))`),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    type: text().$type<WebhookEvent>().notNull(),
    /** What the event is about, unique per endpoint: `run:<run id>`, `purchase:<tx>:…`, … */
    eventKey: text().notNull(),
    /** A run's event: the run, whose answer is final; its `data` is read from it at the first attempt. */
    runId: text(),
    /** The body's `data` as JSON text, exactly as every attempt sends it (wei amounts exact). */
    data: text(),
    /** The body's `timestamp`: when the event happened. */
    occurredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    status: text().$type<DeliveryStatus>().notNull().default("pending"),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** While `sending`: until when the process that claimed it vouches for the attempt. */
    leaseUntil: timestamp({ withTimezone: true }),
    lastResponseStatus: integer(),
    /** Why the last attempt failed, in the outbound guard's words (never the endpoint's answer). */
    lastError: text(),
    deliveredAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex().on(table.endpointId, table.eventKey),
    // The delivery log, newest first; and what an endpoint has pending.
    index().on(table.endpointId, table.createdAt, table.id),
    index("webhook_deliveries_unsettled_index")
      .on(table.endpointId, table.status)
      .where(sql`${table.status} in ('pending', 'sending')`),
    index("webhook_deliveries_due_index")
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    index("webhook_deliveries_leased_index")
      .on(table.leaseUntil)
      .where(sql`${table.status} = 'sending'`),
  ],
);

/** How far each follower of the projections has announced them (`workers/webhooks/`). */
export const webhookFeeds = appSchema.table("webhook_feeds", {
  name: text().primaryKey(),
  /** The last event announced (a Ponder event id), or the chain time announced up to. */
  position: text().notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
