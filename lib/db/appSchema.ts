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
