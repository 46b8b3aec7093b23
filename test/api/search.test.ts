// GET /v1/listings over a seeded catalogue of 500+ listings: every sort with every filter alone and
// a few combined, compared with the same query computed here, and paging walked page by page.
//
// The expectation is computed independently of the API's SQL: filters and sorts in TypeScript over
// what the test published and the reviews it wrote (averaged here); only the text part (`q`) asks
// Postgres, with a plain query of its own over the seeded texts (not over the API's tables or their
// generated search columns): `to_tsvector('english')` with the title weighted A, the description B,
// the creator's name and the category C, matched with `websearch_to_tsquery('english', q)` and
// ranked with `ts_rank_cd`; then, for a query of plain words, the near misses: pg_trgm's
// `word_similarity` of q to the title, creator name and category at least 0.6, ranked by it after
// the exact matches, as the search is specified.
import { createHash } from "node:crypto";
import postgres from "postgres";
import { formatEther, type Hex, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveReview } from "../../api/reviews/saveReview.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { CATEGORIES, RENTAL_MODELS } from "../../lib/marketplace/vocabulary.ts";
import { createApiKey, http } from "../support/http.ts";
import {
  createListing,
  type ListingDraft,
  listingIdsOf,
  registerAgent,
  shortAddress,
} from "../support/listingFixtures.ts";
import { mineBlock, type Transaction, transaction } from "../support/mineBlock.ts";
import { useStack } from "../support/useStack.ts";

const CREATORS = [2, 3, 4, 5, 6, 7, 8, 9].map((index) => devAccount(index));
const DISPLAY_NAMES = ["Ledgerline", "Northwind Labs", "Ada & Co", undefined];
const LISTINGS_PER_CREATOR = 70;
const SORTS = ["relevance", "rating", "price_asc", "price_desc", "newest"] as const;
const PRICES = [
  "0.000001",
  "0.0005",
  "0.001",
  "0.0025",
  "0.005",
  "0.01",
  "0.015",
  "0.02",
  "0.05",
  "0.1",
  "0.123456789012345678",
  "0.25",
  "1",
  "2.5",
  "10",
];
const WORDS = [
  "ledger",
  "invoice",
  "audit",
  "auditing",
  "contract",
  "review",
  "compliance",
  "risk",
  "report",
  "portfolio",
  "forecast",
  "citation",
  "patent",
  "pipeline",
  "outreach",
  "newsletter",
  "refactor",
  "solidity",
  "python",
  "tax",
  "revenue",
  "churn",
  "sentiment",
  "clause",
  "pricing",
  "campaign",
  "translation",
  "summary",
];
const FILLER = ["the", "for", "and", "with", "every", "fast", "clear", "daily", "team", "data"];

type Seeded = {
  draft: ListingDraft;
  onChainId: Hex;
  id: string;
  creator: HDAccount;
  displayName: string | undefined;
  title: string;
  description: string;
  category: (typeof CATEGORIES)[number];
  rentalModel: (typeof RENTAL_MODELS)[number];
  price: bigint;
  publishedAt: number;
  lastUpdated: number;
  status: "active" | "paused" | "closed";
  /** The agent was registered (saved) through the registration code path. */
  registered: boolean;
  /** `createListing` was sent on-chain. */
  onChain: boolean;
  /** Each reviewing wallet's last rating. */
  ratings: Map<string, number>;
};

const stack = useStack({ api: 1, rateLimitPerMinute: 1_000_000 });
let key: string;
let sqlClient: postgres.Sql;
const seeded: Seeded[] = [];

/** Numbers in [0, 1) hashed from `seed` and a counter, so the catalogue is the same on every run. */
function seededRandom(seed: string) {
  let counter = 0;
  const next = () =>
    createHash("sha256").update(`${seed}:${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}

// ─── Seeding ────────────────────────────────────────────────────────────────

type Change = { listing: Seeded; transaction: Transaction };

/**
 * Mines `changes` a few per creator per block (each creator's in order), each block a second after
 * the last, so the indexer has a few dozen blocks to follow rather than one, and some listings share
 * a block time but not all. Returns each change's block time (seconds) and the last block.
 */
async function mineInBlocks(changes: Change[], perCreatorPerBlock = 3) {
  const queues = new Map<HDAccount, Change[]>();
  for (const change of changes) {
    const creator = change.listing.creator;
    queues.set(creator, [...(queues.get(creator) ?? []), change]);
  }
  let { number, timestamp } = await stack().marketplace.publicClient.getBlock();
  const mined: { listing: Seeded; at: number }[] = [];
  while ([...queues.values()].some((queue) => queue.length > 0)) {
    const round = [...queues.values()].flatMap((queue) => queue.splice(0, perCreatorPerBlock));
    ({ number, timestamp } = await mineBlock(
      stack(),
      round.map((change) => change.transaction),
      { timestamp: timestamp + 1n },
    ));
    for (const { listing } of round) mined.push({ listing, at: Number(timestamp) });
  }
  return { mined, lastBlock: number };
}

async function inChunks<T, R>(items: T[], run: (item: T) => Promise<R>, size = 50): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) {
    results.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  }
  return results;
}

function describeAgent(random: ReturnType<typeof seededRandom>) {
  const titleWords = Array.from({ length: 2 + random.int(2) }, () => random.pick(WORDS));
  const title = titleWords.map((word) => word[0]?.toUpperCase() + word.slice(1)).join(" ");
  // Mostly short descriptions, some far beyond the 280 characters a search result shows.
  const length = random.next() < 0.15 ? 50 + random.int(20) : 5 + random.int(20);
  const words = Array.from({ length }, () =>
    random.next() < 0.35 ? random.pick(FILLER) : random.pick(WORDS),
  );
  const description = `${words.join(" ")}.`;
  return { title, description: description[0]?.toUpperCase() + description.slice(1) };
}

async function seedCatalogue() {
  const random = seededRandom("search catalogue");
  for (const [creatorIndex, creator] of CREATORS.entries()) {
    const displayName = DISPLAY_NAMES[creatorIndex % DISPLAY_NAMES.length];
    // Two more than the others: one on-chain only (never registered), one registered only.
    for (let n = 0; n < LISTINGS_PER_CREATOR + 2; n++) {
      const { title, description } = describeAgent(random);
      const category = random.pick(CATEGORIES);
      const rentalModel = random.pick(RENTAL_MODELS);
      const price = parseEther(random.pick(PRICES));
      const seed = `search-${creatorIndex}-${n}`;
      const draft: ListingDraft = {
        creator,
        seed,
        model: RENTAL_MODELS.indexOf(rentalModel),
        price,
        manifest: {
          name: `agent-${creatorIndex}-${n}`,
          title,
          category,
          description,
          sample_output: [`Sample from ${title}`],
          ...(displayName ? { creator_display_name: displayName } : {}),
        },
      };
      seeded.push({
        draft,
        ...listingIdsOf(draft),
        creator,
        displayName,
        title,
        description,
        category,
        rentalModel,
        price,
        publishedAt: 0,
        lastUpdated: 0,
        status: "active",
        registered: n !== LISTINGS_PER_CREATOR,
        onChain: n !== LISTINGS_PER_CREATOR + 1,
        ratings: new Map(),
      });
    }
  }
  seeded.push(...DISTINCT.map((distinct, n) => distinctListing(distinct, n)));

  const registering = inChunks(
    seeded.filter((listing) => listing.registered),
    (listing) => registerAgent(stack().db, listing.draft),
    10,
  );
  const onChain = seeded.filter((listing) => listing.onChain);
  const created = await mineInBlocks(
    onChain.map((listing) => ({ listing, transaction: createListing(listing.draft) })),
  );
  for (const { listing, at } of created.mined) {
    listing.publishedAt = at;
    listing.lastUpdated = at;
  }
  await registering;

  // Some listings are closed, some paused; a few paused ones come back.
  const changes: Change[] = [];
  const change = (listing: Seeded, send: Transaction["send"]) =>
    changes.push({ listing, transaction: transaction(listing.creator, send) });
  for (const [n, listing] of onChain.entries()) {
    const { onChainId } = listing;
    if (n % 29 === 3) {
      listing.status = "closed";
      change(listing, (market) => market.write.closeListing([onChainId]));
    } else if (n % 23 === 5) {
      listing.status = "paused";
      change(listing, (market) => market.write.setListingActive([onChainId, false]));
      if (n % 3 === 0) {
        listing.status = "active";
        change(listing, (market) => market.write.setListingActive([onChainId, true]));
      }
    }
  }
  const changed = await mineInBlocks(changes);
  await seedReviews(random);
  // In nonce order per listing, so a reactivation comes after its pause.
  for (const { listing, at } of changed.mined)
    listing.lastUpdated = Math.max(listing.lastUpdated, at);
  await stack().ponder.waitForBlock(changed.lastBlock, 180_000);
}

/** Listings with words no other has, for typo searches to find: title, and the typo searched. */
const DISTINCT = [
  { title: "Kubernetes Cost Sentinel", typo: "kubernetse cost" },
  { title: "Mortgage Amortization Planner", typo: "mortgage amortisation" },
  { title: "Podcast Transcript Polisher", typo: "podcast transcrpit" },
];

function distinctListing({ title }: (typeof DISTINCT)[number], n: number): Seeded {
  const creator = CREATORS[n] as HDAccount;
  const displayName = DISPLAY_NAMES[n % DISPLAY_NAMES.length];
  const draft: ListingDraft = {
    creator,
    seed: `search-distinct-${n}`,
    model: 0,
    price: parseEther("0.02"),
    manifest: {
      name: `distinct-${n}`,
      title,
      category: "coding",
      description: "The team data, every day.",
      sample_output: [`Sample from ${title}`],
      ...(displayName ? { creator_display_name: displayName } : {}),
    },
  };
  return {
    draft,
    ...listingIdsOf(draft),
    creator,
    displayName,
    title,
    description: "The team data, every day.",
    category: "coding",
    rentalModel: RENTAL_MODELS[0],
    price: parseEther("0.02"),
    publishedAt: 0,
    lastUpdated: 0,
    status: "active",
    registered: true,
    onChain: true,
    ratings: new Map(),
  };
}

/**
 * Reviews through the code path the API writes them with (who may review is reviews.test.ts'
 * subject): most listings get one to four, some wallets edit theirs, many averages tie.
 */
async function seedReviews(random: ReturnType<typeof seededRandom>) {
  const writes: { listing: Seeded; wallet: string; rating: number }[] = [];
  for (const [n, listing] of seeded.entries()) {
    if (!listing.registered || random.next() < 0.25) continue;
    const reviewers = 1 + random.int(4);
    for (let r = 0; r < reviewers; r++) {
      const wallet = `0x${createHash("sha256").update(`reviewer-${r}`).digest("hex").slice(0, 40)}`;
      writes.push({ listing, wallet, rating: 1 + random.int(5) });
      if (n % 7 === r) writes.push({ listing, wallet, rating: 1 + random.int(5) });
    }
  }
  // One listing's reviews one after another (an edit after its review); listings side by side.
  const byListing = new Map<Seeded, typeof writes>();
  for (const write of writes) {
    byListing.set(write.listing, [...(byListing.get(write.listing) ?? []), write]);
  }
  await inChunks([...byListing.values()], async (listingWrites) => {
    for (const { listing, wallet, rating } of listingWrites) {
      await saveReview(stack().db, {
        onChainListingId: listing.onChainId,
        wallet: wallet as Hex,
        rating,
        text: `Rated ${rating}`,
      });
      listing.ratings.set(wallet, rating);
    }
  });
}

// ─── The expectation ────────────────────────────────────────────────────────

type Query = {
  q?: string;
  category?: string;
  rental_model?: string;
  min_price?: string;
  max_price?: string;
  min_rating?: string;
  sort?: (typeof SORTS)[number];
};

const reviewCountOf = (listing: Seeded) => listing.ratings.size;
const ratingOf = (listing: Seeded) => {
  const ratings = [...listing.ratings.values()];
  return ratings.length === 0 ? 0 : ratings.reduce((sum, one) => sum + one, 0) / ratings.length;
};

/** Near misses are looked for when the query is words alone: no quotes, no exclusions. */
const NEAR_MISS_SIMILARITY = 0.6;
const isPlainWords = (q: string) => !/["-]/.test(q);

type Match = { exact: boolean; rank: number; nearness: number };
const matchCache = new Map<string, Map<Hex, Match>>();

/**
 * The listings `q` matches, from Postgres' full-text and trigram functions over the seed: exact
 * matches with their rank, near misses with their similarity.
 */
async function textMatches(q: string): Promise<Map<Hex, Match>> {
  const cached = matchCache.get(q);
  if (cached) return cached;
  const registered = seeded.filter((listing) => listing.registered);
  const rows = await sqlClient<{ id: Hex; exact: boolean; rank: number; nearness: number }[]>`
    with seed as (
      select id, setweight(to_tsvector('english', title), 'A')
        || setweight(to_tsvector('english', description), 'B')
        || setweight(to_tsvector('english', creator_name || ' ' || category), 'C') as document,
        word_similarity(${q}, title || ' ' || creator_name || ' ' || category) as similarity
      from unnest(
        ${registered.map((listing) => listing.onChainId)}::text[],
        ${registered.map((listing) => listing.title)}::text[],
        ${registered.map((listing) => listing.description)}::text[],
        ${registered.map((listing) => listing.displayName ?? shortAddress(listing.creator))}::text[],
        ${registered.map((listing) => listing.category)}::text[]
      ) as seed(id, title, description, creator_name, category)
    )
    select id, document @@ query as exact, ts_rank_cd(document, query) as rank,
      similarity as nearness
    from seed, websearch_to_tsquery('english', ${q}) as query
    where document @@ query
      or (${isPlainWords(q)} and similarity >= ${NEAR_MISS_SIMILARITY}::float8)`;
  const matches = new Map(
    rows.map((row) => [
      row.id,
      {
        exact: row.exact,
        rank: row.exact ? Number(row.rank) : 0,
        nearness: row.exact ? 0 : Number(row.nearness),
      },
    ]),
  );
  matchCache.set(q, matches);
  return matches;
}

/** What a user should see for `query`: the catalogue's listings in order. */
async function expectedListings(query: Query): Promise<Seeded[]> {
  const matches = query.q ? await textMatches(query.q.trim()) : undefined;
  const rows = seeded.filter(
    (listing) =>
      listing.registered &&
      listing.onChain &&
      listing.status === "active" &&
      (!matches || matches.has(listing.onChainId)) &&
      (!query.category || listing.category === query.category) &&
      (!query.rental_model || listing.rentalModel === query.rental_model) &&
      (!query.min_price || listing.price >= parseEther(query.min_price)) &&
      (!query.max_price || listing.price <= parseEther(query.max_price)) &&
      (!query.min_rating || ratingOf(listing) >= Number(query.min_rating)),
  );
  const matchOf = (listing: Seeded) =>
    matches?.get(listing.onChainId) ?? { exact: true, rank: 0, nearness: 0 };
  const keys: Record<(typeof SORTS)[number], (a: Seeded, b: Seeded) => number> = {
    relevance: (a, b) =>
      Number(matchOf(b).exact) - Number(matchOf(a).exact) ||
      matchOf(b).rank - matchOf(a).rank ||
      matchOf(b).nearness - matchOf(a).nearness ||
      b.publishedAt - a.publishedAt,
    rating: (a, b) =>
      ratingOf(b) - ratingOf(a) ||
      reviewCountOf(b) - reviewCountOf(a) ||
      b.publishedAt - a.publishedAt,
    price_asc: (a, b) => compareBig(a.price, b.price),
    price_desc: (a, b) => compareBig(b.price, a.price),
    newest: (a, b) => b.publishedAt - a.publishedAt,
  };
  const byKey = keys[query.sort ?? "relevance"];
  // Ties are broken by the on-chain id, ascending.
  return rows.sort((a, b) => byKey(a, b) || compareText(a.onChainId, b.onChainId));
}

const compareBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// ─── Over HTTP ──────────────────────────────────────────────────────────────

type Summary = { id: string; description: string } & Record<string, unknown>;
type Page = { listings: Summary[]; total: number; limit: number; offset: number };

function queryString(query: Query, page: { limit: number; offset: number }) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) params.set(name, value);
  params.set("limit", String(page.limit));
  params.set("offset", String(page.offset));
  return params.toString();
}

const api = http(() => stack().api.url);

async function search(query: Query, page: { limit: number; offset: number }): Promise<Page> {
  const response = await api.get(`/v1/listings?${queryString(query, page)}`, { bearer: key });
  const body = response.body as Page;
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(response.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{24}$/);
  expect(body.limit).toBe(page.limit);
  expect(body.offset).toBe(page.offset);
  return body;
}

/**
 * Every page of `query` up to the first short one: the first page, then the others its total
 * implies, all at once. The listings and each page's total.
 */
async function walk(query: Query, limit: number) {
  const first = await search(query, { limit, offset: 0 });
  expect(first.total).toBeLessThanOrEqual(seeded.length);
  const offsets = Array.from(
    { length: Math.floor(first.total / limit) },
    (_, n) => (n + 1) * limit,
  );
  const pages = [
    first,
    ...(await Promise.all(offsets.map((offset) => search(query, { limit, offset })))),
  ];
  // Full pages, then a short one: nothing lies past the total.
  expect(pages.map((page) => page.listings.length < limit)).toEqual(
    pages.map((_, n) => n === pages.length - 1),
  );
  const listings = pages.flatMap((page) => page.listings);
  return {
    listings,
    ids: listings.map((listing) => listing.id),
    totals: pages.map((page) => page.total),
  };
}

async function expectWalk(query: Query, limit: number) {
  const expected = (await expectedListings(query)).map((listing) => listing.id);
  const { ids, totals } = await walk(query, limit);
  expect(ids).toEqual(expected);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(totals)).toEqual(new Set([expected.length]));
  return expected;
}

// ─── Tests ──────────────────────────────────────────────────────────────────

beforeAll(async () => {
  sqlClient = postgres(stack().postgres.databaseUrl, { max: 2, onnotice: () => {} });
  [{ key }] = await Promise.all([
    createApiKey(stack().api.url, devAccount(9), "search"),
    seedCatalogue(),
  ]);
}, 600_000);

afterAll(async () => {
  await sqlClient?.end();
});

/** Each filter alone, then a few together. */
const FILTERS: [string, Query][] = [
  ["no filter", {}],
  ["q=ledger", { q: "ledger" }],
  ["q=auditing (stemmed like audit)", { q: "auditing" }],
  ["q=Solidity (any case)", { q: "Solidity" }],
  ["q=contract review (both words)", { q: "contract review" }],
  ["q=invoice or forecast", { q: "invoice or forecast" }],
  ['q="risk report" (a phrase)', { q: '"risk report"' }],
  ["q=compliance -tax (without tax)", { q: "compliance -tax" }],
  ["q= churn  (trimmed)", { q: " churn " }],
  ["q=zebra (no match)", { q: "zebra" }],
  ["q=the (a stop word only)", { q: "the" }],
  ...CATEGORIES.map((category): [string, Query] => [`category=${category}`, { category }]),
  ...RENTAL_MODELS.map((model): [string, Query] => [
    `rental_model=${model}`,
    { rental_model: model },
  ]),
  ["min_price=0.01", { min_price: "0.01" }],
  ["min_price at the lowest price", { min_price: "0.000001" }],
  ["min_price to the wei", { min_price: "0.123456789012345678" }],
  ["max_price=0.01", { max_price: "0.01" }],
  ["max_price just under a price", { max_price: "0.123456789012345677" }],
  ["min_price=0.005 max_price=0.1", { min_price: "0.005", max_price: "0.1" }],
  ["min_rating=0", { min_rating: "0" }],
  ["min_rating=0.5", { min_rating: "0.5" }],
  ["min_rating=3.5", { min_rating: "3.5" }],
  ["min_rating=4.25", { min_rating: "4.25" }],
  ["min_rating=5", { min_rating: "5" }],
  ["q=Northwind (a creator's name)", { q: "Northwind" }],
  ["q=ada (a creator's name, any case)", { q: "ada" }],
  ["q=legal (a category)", { q: "legal" }],
  ["q=ledgr (a typo)", { q: "ledgr" }],
  ["q=kubernetse cost (a typo)", { q: "kubernetse cost" }],
  ["q=northwnd labs (a creator's name with a typo)", { q: "northwnd labs" }],
  ["q=ledger category=finance", { q: "ledger", category: "finance" }],
  [
    "category=coding rental_model=per_query max_price=0.05",
    { category: "coding", rental_model: "per_query", max_price: "0.05" },
  ],
  [
    "q=contract review rental_model=subscription min_price=0.01",
    { q: "contract review", rental_model: "subscription", min_price: "0.01" },
  ],
  [
    "q=audit or invoice category=legal min_rating=3",
    { q: "audit or invoice", category: "legal", min_rating: "3" },
  ],
  [
    "category=sales rental_model=one_time min_price=0.001 max_price=1",
    { category: "sales", rental_model: "one_time", min_price: "0.001", max_price: "1" },
  ],
];

describe("the seeded catalogue", () => {
  it("holds at least 500 active published listings, and not the others", async () => {
    const active = seeded.filter((one) => one.registered && one.onChain && one.status === "active");
    expect(active.length).toBeGreaterThanOrEqual(500);
    expect(seeded.filter((one) => one.status === "paused").length).toBeGreaterThan(0);
    expect(seeded.filter((one) => one.status === "closed").length).toBeGreaterThan(0);
    const page = await search({}, { limit: 1, offset: 0 });
    expect(page.total).toBe(active.length);
  });

  it("gives the filters something to find", async () => {
    const sizes = await Promise.all(
      FILTERS.map(async ([name, query]) => [name, (await expectedListings(query)).length] as const),
    );
    const empty = sizes.filter(([, size]) => size === 0).map(([name]) => name);
    expect(empty.sort()).toEqual(["q=the (a stop word only)", "q=zebra (no match)"].sort());
    // Several ranks, similarities, ratings and publication times are shared, so the tie-breaks
    // are exercised.
    const matches = [...(await textMatches("ledger")).values()];
    const ranks = matches.filter((match) => match.exact).map((match) => match.rank);
    expect(new Set(ranks).size).toBeGreaterThan(1);
    expect(new Set(ranks).size).toBeLessThan(ranks.length);
    const nearMisses = matches.filter((match) => !match.exact).map((match) => match.nearness);
    expect(nearMisses.length).toBeGreaterThan(1);
    expect(new Set(nearMisses).size).toBeLessThan(nearMisses.length);
    const times = seeded.map((one) => one.publishedAt);
    expect(new Set(times).size).toBeLessThan(times.length);
    const reviewed = seeded.filter((one) => one.ratings.size > 0);
    const ratings = reviewed.map((one) => `${ratingOf(one)}:${reviewCountOf(one)}`);
    expect(reviewed.length).toBeGreaterThan(300);
    expect(new Set(reviewed.map(ratingOf)).size).toBeLessThan(reviewed.length);
    expect(new Set(ratings).size).toBeLessThan(ratings.length);
    expect(reviewed.some((one) => !Number.isInteger(ratingOf(one)))).toBe(true);
  });

  it("shows every listing's summary as published", async () => {
    const { listings } = await walk({ sort: "newest" }, 100);
    const active = seeded.filter((one) => one.registered && one.onChain && one.status === "active");
    const listingCount = (creator: HDAccount) =>
      active.filter((one) => one.creator === creator).length;
    const byId = new Map(seeded.map((one) => [one.id, one]));
    for (const summary of listings) {
      const listing = byId.get(summary.id) as Seeded;
      expect(summary).toEqual({
        id: listing.id,
        title: listing.title,
        description:
          listing.description.length <= 280
            ? listing.description
            : `${listing.description.slice(0, 279).trimEnd()}…`,
        category: [listing.category],
        rental_model: listing.rentalModel,
        price_eth: Number(formatEther(listing.price)),
        run_count: 0,
        success_rate: 0,
        creator: {
          id: listing.creator.address.toLowerCase(),
          display_name: listing.displayName ?? shortAddress(listing.creator),
          listing_count: listingCount(listing.creator),
        },
        rating: ratingOf(listing),
        review_count: reviewCountOf(listing),
        last_updated: new Date(listing.lastUpdated * 1000).toISOString(),
        sample_output: [`Sample from ${listing.title}`],
      });
    }
    expect(listings.some((summary) => summary.description.endsWith("…"))).toBe(true);
  });
});

// Each query only reads, so a few run at a time.
describe.each(SORTS)("sort=%s", (sort) => {
  it.concurrent.each(FILTERS)(
    "%s: the same listings in the same order, and total",
    async (_, filters) => {
      await expectWalk({ ...filters, sort }, 100);
    },
  );
});

describe("forgiving queries", () => {
  it.each(DISTINCT)("finds $title for $typo in the first three", async ({ title, typo }) => {
    const { listings } = await search({ q: typo }, { limit: 3, offset: 0 });
    expect(listings.map((listing) => listing.title)).toContain(title);
  });

  it("finds every active listing of a creator by its display name", async () => {
    const { listings } = await walk({ q: "Northwind Labs" }, 100);
    const theirs = seeded.filter(
      (one) =>
        one.displayName === "Northwind Labs" &&
        one.registered &&
        one.onChain &&
        one.status === "active",
    );
    expect(listings.length).toBeGreaterThanOrEqual(theirs.length);
    // Theirs first: the name matches them exactly.
    expect(new Set(listings.slice(0, theirs.length).map((listing) => listing.id))).toEqual(
      new Set(theirs.map((one) => one.id)),
    );
  });
});

describe("price_eth", () => {
  it("is written digit for digit from wei, up to 18 decimals", async () => {
    const response = await fetch(
      `${stack().api.url}/v1/listings?min_price=0.123456789012345678&max_price=0.123456789012345678&limit=1`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    const text = await response.text();
    expect(text).toContain('"price_eth":0.123456789012345678,');
    const one = seeded.find(
      (listing) =>
        listing.price === parseEther("0.000001") && listing.registered && listing.onChain,
    );
    const detail = await fetch(`${stack().api.url}/v1/listings/${one?.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await detail.text()).toContain('"price_eth":0.000001,');
  });
});

describe("paging", () => {
  const walks: [string, Query][] = [
    ["the default order", {}],
    ["sort=rating, where many listings tie", { sort: "rating" }],
    ["q=ledger sort=price_desc", { q: "ledger", sort: "price_desc" }],
    ["q=review, by relevance", { q: "review" }],
    ["category=research sort=newest", { category: "research", sort: "newest" }],
    ["rental_model=per_query sort=price_asc", { rental_model: "per_query", sort: "price_asc" }],
  ];

  it.each(walks)("walks %s in pages of 7 and of 100 alike", async (_, query) => {
    const [bySeven, byHundred] = await Promise.all([expectWalk(query, 7), expectWalk(query, 100)]);
    expect(bySeven).toEqual(byHundred);
    expect(bySeven.length).toBeGreaterThan(7);
  });

  it("answers past the end with no listings and the same total", async () => {
    const total = (await expectedListings({})).length;
    for (const offset of [total, total + 1, 1_000_000]) {
      const page = await search({}, { limit: 7, offset });
      expect(page).toEqual({ listings: [], total, limit: 7, offset });
    }
    const last = await search({}, { limit: 7, offset: total - 3 });
    expect(last.listings).toHaveLength(3);
  });

  it("uses a page of 20 from offset 0 by default", async () => {
    const page = (await api.get("/v1/listings", { bearer: key })).body as Page;
    const expected = (await expectedListings({})).slice(0, 20).map((listing) => listing.id);
    expect({ ...page, listings: page.listings.map((listing) => listing.id) }).toEqual({
      listings: expected,
      total: (await expectedListings({})).length,
      limit: 20,
      offset: 0,
    });
  });
});
