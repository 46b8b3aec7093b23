// The `app` schema, owned by the API and the workers (the indexer owns the projections).
import { sql } from "drizzle-orm";
import {
  bigint,
  customType,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

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
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (table) => [index().on(table.expiresAt)],
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
      sql`setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description), 'B')`,
    ),
  },
  (table) => [
    index().using("gin", table.searchDocument),
    index().on(table.category),
    index().on(table.creator),
  ],
);

/** Fixed one-minute windows per subject, shared by every API process. */
export const rateLimitWindows = appSchema.table(
  "rate_limit_windows",
  {
    subject: text().notNull(),
    windowStart: bigint({ mode: "number" }).notNull(),
    count: integer().notNull(),
  },
  (table) => [primaryKey({ columns: [table.subject, table.windowStart] })],
);

const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });

export type JobStatus = "queued" | "completed" | "failed";

/** Asynchronous work a wallet asked for; the bus carries only the id. */
export const jobs = appSchema.table(
  "jobs",
  {
    id: text().primaryKey(),
    wallet: text().notNull(),
    kind: text().$type<"registration">().notNull(),
    status: text().$type<JobStatus>().notNull(),
    idempotencyKey: text(),
    /** SHA-256 of the request body, to tell a retry from a different request under the same key. */
    requestHash: text().notNull(),
    /** The sealed request (it holds the prompt and vendor credentials); dropped once processed. */
    request: bytea(),
    /** Which sealing key sealed `request` (`sealingKeyId`); null once it is dropped, or from before ids. */
    sealingKeyId: text(),
    result: jsonb(),
    error: jsonb(),
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
