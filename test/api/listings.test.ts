// GET /v1/listings and GET /v1/listings/:id over HTTP against the whole stack: every field of the
// spec's summary and detail shapes, how on-chain changes show, and every error either can return.
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { type Hex, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  seedOf,
} from "../../devStack/marketplace.ts";
import { type PublicManifest, saveAgent } from "../../lib/agents/saveAgent.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { JWT_SECRET, startTestStack, type TestStack } from "../harness/stack.ts";
import { createApiKey, signIn } from "../support/http.ts";

const authority = devAccount(0);
const quantWorks = devAccount(2); // creator with a display name
const anonymous = devAccount(3); // creator without one: shown by a shortened address
const pauseCo = devAccount(4); // creator whose listings get paused, closed, updated
const renter = devAccount(7);

const MODEL_NAMES = {
  [ONE_TIME]: "one_time",
  [SUBSCRIPTION]: "subscription",
  [PER_QUERY]: "per_query",
};

let stack: TestStack;
/** One API key per group of tests, so no group comes near the 100 requests a minute limit. */
let keys: Record<"catalogue" | "changes" | "missing" | "validation", string>;

// ─── Over HTTP ───────────────────────────────────────────────────────────────

const requestIds: string[] = [];

/** A reply as the tests read it: the body's shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked by the assertions
type Reply = { status: number; headers: Headers; body: any };

/**
 * A GET as a client makes it; every response, success or error, must carry a request id and the
 * rate limit headers. `bearer` is a token, or a whole Authorization value when it has a space.
 */
async function get(path: string, bearer?: string): Promise<Reply> {
  const response = await fetch(`${stack.api.url}${path}`, {
    headers: bearer ? { authorization: bearer.includes(" ") ? bearer : `Bearer ${bearer}` } : {},
  });
  const requestId = response.headers.get("x-request-id");
  expect(requestId, `X-Request-Id of ${path}`).toMatch(/^req_[0-9a-f]{24}$/);
  requestIds.push(requestId as string);
  for (const header of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(response.headers.get(header), `${header} of ${path}`).toMatch(/^\d+$/);
  }
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** The spec's error object, nothing more, with the HTTP status repeated inside. */
function expectError(reply: { status: number; body: unknown }, status: number, code: string) {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status,
    body: { error: { code, message: expect.any(String), status } },
  });
}

// ─── Listings as the test tracks them ───────────────────────────────────────

type Published = {
  onChainId: Hex;
  id: string;
  creator: HDAccount;
  manifest: PublicManifest;
  model: number;
  priceEth: string;
  metadataUri: string;
  status: "active" | "paused" | "closed";
  publishedAt: string;
  lastUpdated: string;
  runs: { succeeded: number; failed: number };
};

const published: Published[] = [];

/** Waits for a transaction, then for the indexer to have it; returns its block time. */
async function send(hash: Promise<Hex>): Promise<string> {
  const receipt = await stack.marketplace.mined(hash);
  const block = await stack.marketplace.publicClient.getBlock({ blockNumber: receipt.blockNumber });
  await stack.ponder.waitForBlock(receipt.blockNumber);
  return new Date(Number(block.timestamp) * 1000).toISOString();
}

/**
 * Lists an agent as a creator does: the public manifest stored through the registration code
 * path, then `createListing`. `registered: false` leaves the agent out (an unpublished listing).
 */
async function publish(options: {
  creator: HDAccount;
  seed: string;
  model: number;
  priceEth: string;
  manifest: PublicManifest;
  registered?: boolean;
}): Promise<Published> {
  const seed = seedOf(options.seed);
  const market = stack.marketplace.as(options.creator);
  const onChainId = await market.read.deriveListingId([options.creator.address, seed]);
  if (options.registered !== false) {
    await saveAgent(stack.db, {
      agentId: `${options.manifest.name}-${onChainId.slice(2, 10)}`,
      onChainListingId: onChainId,
      creator: options.creator.address,
      publicManifest: options.manifest,
      metadataUri: METADATA_URI,
    });
  }
  const at = await send(
    market.write.createListing([seed, options.model, parseEther(options.priceEth), METADATA_URI]),
  );
  const listing: Published = {
    onChainId,
    id: toApiListingId(onChainId),
    creator: options.creator,
    manifest: options.manifest,
    model: options.model,
    priceEth: options.priceEth,
    metadataUri: METADATA_URI,
    status: "active",
    publishedAt: at,
    lastUpdated: at,
    runs: { succeeded: 0, failed: 0 },
  };
  if (options.registered !== false) published.push(listing);
  return listing;
}

/** What the catalogue says of a creator: their published listings that are active. */
function activeListingCount(creator: HDAccount) {
  return published.filter((one) => one.creator === creator && one.status === "active").length;
}

/** Without a title the catalogue shows one made from the kebab-case name. */
function titleFromName(name: string) {
  return name.replace(
    /(^|-)([a-z])/g,
    (_, dash, letter) => `${dash ? " " : ""}${letter.toUpperCase()}`,
  );
}

function shortAddress(account: HDAccount) {
  return `${account.address.slice(0, 6)}…${account.address.slice(-4)}`;
}

/** The summary the spec describes, from what the test published (descriptions whole). */
function summaryOf(listing: Published) {
  const { manifest, runs } = listing;
  const runCount = runs.succeeded + runs.failed;
  return {
    id: listing.id,
    title: manifest.title ?? titleFromName(manifest.name),
    description: manifest.description,
    category: [manifest.category],
    rental_model: MODEL_NAMES[listing.model as keyof typeof MODEL_NAMES],
    price_eth: Number(listing.priceEth),
    run_count: runCount,
    success_rate: runCount === 0 ? 0 : runs.succeeded / runCount,
    creator: {
      id: listing.creator.address.toLowerCase(),
      display_name: manifest.creator_display_name ?? shortAddress(listing.creator),
      listing_count: activeListingCount(listing.creator),
    },
    rating: 0, // no reviews are collected yet (docs/decisions)
    review_count: 0,
    last_updated: listing.lastUpdated,
    sample_output: manifest.sample_output ?? [],
  };
}

function detailOf(listing: Published) {
  return {
    ...summaryOf(listing),
    published_at: listing.publishedAt,
    status: listing.status,
    on_chain_id: listing.onChainId,
    metadata_uri: listing.metadataUri,
  };
}

/** Every active listing in one page (the file never publishes more than 100). */
async function catalogue(bearer: string) {
  const reply = await get("/v1/listings?limit=100", bearer);
  expect(reply.status).toBe(200);
  return reply.body as { listings: { id: string }[]; total: number };
}

// ─── The catalogue every test starts from ────────────────────────────────────

const LONG_DESCRIPTION =
  "Reads quarterly filings, earnings call transcripts and price history, then writes a one-page " +
  "outlook per ticker with a bullish, neutral or bearish call and its confidence. Flags unusual " +
  "insider selling, guidance cuts and covenant changes. Covers US and EU large caps; small caps on " +
  "request. Output is plain text, one ticker per paragraph, sources cited at the end.";
/** Exactly as long as a search result may show: kept whole. */
const DESCRIPTION_AT_LIMIT = `Finds decision makers at companies matching your ideal customer profile. ${"x".repeat(207)}`;

let analyst: Published; // quantWorks, finance, one-time, title and long description
let reviewer: Published; // quantWorks, legal, subscription, title from its name
let leadFinder: Published; // anonymous creator, sales, per-task, description at the limit

beforeAll(async () => {
  stack = await startTestStack();
  expect(DESCRIPTION_AT_LIMIT).toHaveLength(280);

  analyst = await publish({
    creator: quantWorks,
    seed: "market-analyst",
    model: ONE_TIME,
    priceEth: "0.05",
    manifest: {
      name: "market-analyst",
      title: "Market Analyst Pro",
      category: "finance",
      description: LONG_DESCRIPTION,
      sample_output: ["AAPL: bullish (0.72)", "TSLA: neutral (0.51)", "NVDA: bearish (0.64)"],
      creator_display_name: "Quant Works",
    },
  });
  reviewer = await publish({
    creator: quantWorks,
    seed: "contract-reviewer",
    model: SUBSCRIPTION,
    priceEth: "0.01",
    manifest: {
      name: "contract-reviewer",
      category: "legal",
      description: "Flags one-sided clauses in NDAs and service agreements.",
      sample_output: ["Clause 4.2 caps liability for one party only."],
      creator_display_name: "Quant Works",
    },
  });
  leadFinder = await publish({
    creator: anonymous,
    seed: "lead-finder",
    model: PER_QUERY,
    priceEth: "0.000001",
    manifest: {
      name: "lead-finder",
      title: "Lead Finder",
      category: "sales",
      description: DESCRIPTION_AT_LIMIT,
      sample_output: ["Jane Doe, VP Sales, Example Corp"],
    },
  });

  const [catalogueKey, changesKey, missingKey, validationKey] = await Promise.all(
    ["catalogue", "changes", "missing", "validation"].map((label) =>
      createApiKey(stack.api.url, renter, label),
    ),
  );
  keys = {
    catalogue: (catalogueKey as { key: string }).key,
    changes: (changesKey as { key: string }).key,
    missing: (missingKey as { key: string }).key,
    validation: (validationKey as { key: string }).key,
  };
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

// ─── Tests ───────────────────────────────────────────────────────────────────

describe("GET /v1/listings", () => {
  it("returns the active published listings as summaries, newest first, with paging echoed", async () => {
    const reply = await get("/v1/listings", keys.catalogue);
    expect(reply.status).toBe(200);
    // Without q, relevance is publication time, newest first (ties by on-chain id).
    const newestFirst = [analyst, reviewer, leadFinder].sort(
      (a, b) => b.publishedAt.localeCompare(a.publishedAt) || (a.onChainId < b.onChainId ? -1 : 1),
    );
    expect(reply.body).toEqual({
      listings: newestFirst.map((listing) => ({
        ...summaryOf(listing),
        description:
          listing === analyst ? expect.stringMatching(/…$/) : listing.manifest.description,
      })),
      total: 3,
      limit: 20,
      offset: 0,
    });
  });

  it("shows every summary field of a listing as the spec names it", async () => {
    const reply = await get("/v1/listings?q=ticker&limit=5", keys.catalogue);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      listings: [
        {
          id: `lst_${analyst.onChainId.slice(2)}`,
          title: "Market Analyst Pro",
          description: `${LONG_DESCRIPTION.slice(0, 279).trimEnd()}…`,
          category: ["finance"],
          rental_model: "one_time",
          price_eth: 0.05,
          run_count: 0,
          success_rate: 0,
          creator: {
            id: quantWorks.address.toLowerCase(),
            display_name: "Quant Works",
            listing_count: 2,
          },
          rating: 0,
          review_count: 0,
          last_updated: analyst.publishedAt,
          sample_output: ["AAPL: bullish (0.72)", "TSLA: neutral (0.51)", "NVDA: bearish (0.64)"],
        },
      ],
      total: 1,
      limit: 5,
      offset: 0,
    });
    const [summary] = reply.body.listings;
    expect(summary.id).toMatch(/^lst_[0-9a-f]{64}$/);
    expect(summary.description.length).toBeLessThanOrEqual(280);
    expect(new Date(summary.last_updated).toISOString()).toBe(summary.last_updated);
  });

  it("keeps a description of exactly 280 characters whole", async () => {
    const reply = await get("/v1/listings?category=sales", keys.catalogue);
    expect(reply.body.listings).toEqual([summaryOf(leadFinder)]);
    expect(reply.body.listings[0].description).toBe(DESCRIPTION_AT_LIMIT);
  });

  it("names a creator without a display name by a shortened address", async () => {
    const reply = await get(`/v1/listings/${leadFinder.id}`, keys.catalogue);
    expect(reply.body.creator).toEqual({
      id: anonymous.address.toLowerCase(),
      display_name: `${anonymous.address.slice(0, 6)}…${anonymous.address.slice(-4)}`,
      listing_count: 1,
    });
  });

  it("answers the same to a wallet-signature JWT as to an API key", async () => {
    const token = await signIn(stack.api.url, renter);
    const withToken = await get("/v1/listings?sort=price_asc", token);
    const withKey = await get("/v1/listings?sort=price_asc", keys.catalogue);
    expect(withToken.status).toBe(200);
    expect(withToken.body).toEqual(withKey.body);
    expect(withToken.body.listings.map((one: { id: string }) => one.id)).toEqual([
      leadFinder.id,
      reviewer.id,
      analyst.id,
    ]);
  });
});

describe("GET /v1/listings/:id", () => {
  it("shows every detail field of a listing, with the whole description", async () => {
    const reply = await get(`/v1/listings/${analyst.id}`, keys.catalogue);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      id: analyst.id,
      title: "Market Analyst Pro",
      description: LONG_DESCRIPTION,
      category: ["finance"],
      rental_model: "one_time",
      price_eth: 0.05,
      run_count: 0,
      success_rate: 0,
      creator: {
        id: quantWorks.address.toLowerCase(),
        display_name: "Quant Works",
        listing_count: 2,
      },
      rating: 0,
      review_count: 0,
      last_updated: analyst.publishedAt,
      sample_output: ["AAPL: bullish (0.72)", "TSLA: neutral (0.51)", "NVDA: bearish (0.64)"],
      published_at: analyst.publishedAt,
      status: "active",
      on_chain_id: analyst.onChainId,
      metadata_uri: METADATA_URI,
    });
    expect(reply.body.on_chain_id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(reply.body.id).toBe(`lst_${reply.body.on_chain_id.slice(2)}`);
  });

  it("shows the other rental models' listings in detail", async () => {
    for (const listing of [reviewer, leadFinder]) {
      const reply = await get(`/v1/listings/${listing.id}`, keys.catalogue);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(detailOf(listing));
    }
    expect(detailOf(reviewer).title).toBe("Contract Reviewer");
  });
});

describe("on-chain changes as the API shows them", () => {
  it("shows a new price and metadata URI after updateListing; published_at stays", async () => {
    const listing = await publish({
      creator: pauseCo,
      seed: "updated",
      model: SUBSCRIPTION,
      priceEth: "0.2",
      manifest: {
        name: "grant-writer",
        title: "Grant Writer",
        category: "content",
        description: "Drafts grant proposals from a project summary.",
        sample_output: ["Project narrative, 1,200 words"],
        creator_display_name: "Pause Co",
      },
    });
    const newUri = "ipfs://bafkreiupdatedgrantwritermanifest";
    listing.lastUpdated = await send(
      stack.marketplace
        .as(pauseCo)
        .write.updateListing([listing.onChainId, parseEther("0.125"), newUri]),
    );
    listing.priceEth = "0.125";
    listing.metadataUri = newUri;

    const detail = await get(`/v1/listings/${listing.id}`, keys.changes);
    expect(detail.body).toEqual(detailOf(listing));
    expect(detail.body.price_eth).toBe(0.125);
    expect(detail.body.published_at).toBe(listing.publishedAt);
    expect(detail.body.last_updated >= detail.body.published_at).toBe(true);

    const search = await get("/v1/listings?category=content", keys.changes);
    expect(search.body.listings).toEqual([summaryOf(listing)]);
  });

  it("counts runs the authority records and per-task debits in run_count and success_rate", async () => {
    const oneTime = await publish({
      creator: quantWorks,
      seed: "runs-one-time",
      model: ONE_TIME,
      priceEth: "0.01",
      manifest: {
        name: "run-counter",
        category: "coding",
        description: "Counts runs.",
        sample_output: ["ok"],
      },
    });
    const perTask = await publish({
      creator: anonymous,
      seed: "runs-per-task",
      model: PER_QUERY,
      priceEth: "0.001",
      manifest: {
        name: "task-counter",
        category: "coding",
        description: "Counts debited tasks.",
        sample_output: ["ok"],
      },
    });
    const asAuthority = stack.marketplace.as(authority).write;

    // Three successes and a failure, logged by the authority in one batch.
    const runs = [
      { listingId: oneTime.onChainId, runId: 1n, succeeded: true },
      { listingId: oneTime.onChainId, runId: 2n, succeeded: true },
      { listingId: oneTime.onChainId, runId: 3n, succeeded: false },
      { listingId: oneTime.onChainId, runId: 4n, succeeded: true },
    ];
    await send(asAuthority.recordRuns([runs]));
    oneTime.runs = { succeeded: 3, failed: 1 };
    // A retried batch logs nothing twice.
    await send(asAuthority.recordRuns([runs]));

    // Two debited tasks (each a completed run), then a failed run logged.
    await send(
      stack.marketplace
        .as(renter)
        .write.purchasePerQuery([perTask.onChainId], { value: parseEther("0.003") }),
    );
    await send(asAuthority.consumeQuery([perTask.onChainId, renter.address, 10n]));
    await send(asAuthority.consumeQuery([perTask.onChainId, renter.address, 11n]));
    await send(
      asAuthority.recordRuns([[{ listingId: perTask.onChainId, runId: 12n, succeeded: false }]]),
    );
    perTask.runs = { succeeded: 2, failed: 1 };

    const first = await get(`/v1/listings/${oneTime.id}`, keys.changes);
    expect(first.body).toEqual(detailOf(oneTime));
    expect(first.body).toMatchObject({ run_count: 4, success_rate: 0.75 });
    const second = await get(`/v1/listings/${perTask.id}`, keys.changes);
    expect(second.body).toEqual(detailOf(perTask));
    expect(second.body).toMatchObject({ run_count: 3, success_rate: 2 / 3 });

    const search = await get("/v1/listings?category=coding&sort=price_desc", keys.changes);
    expect(search.body.listings).toEqual([summaryOf(oneTime), summaryOf(perTask)]);
  });

  it("keeps a paused listing in detail as paused, out of search, and back once reactivated", async () => {
    const listing = await publish({
      creator: pauseCo,
      seed: "paused",
      model: ONE_TIME,
      priceEth: "0.02",
      manifest: {
        name: "paper-summarizer",
        title: "Paper Summarizer",
        category: "research",
        description: "Summarizes research papers.",
        sample_output: ["Abstract in three sentences."],
        creator_display_name: "Pause Co",
      },
    });
    const before = await catalogue(keys.changes);
    expect(before.listings.map((one) => one.id)).toContain(listing.id);

    listing.lastUpdated = await send(
      stack.marketplace.as(pauseCo).write.setListingActive([listing.onChainId, false]),
    );
    listing.status = "paused";
    const detail = await get(`/v1/listings/${listing.id}`, keys.changes);
    expect(detail.body).toEqual(detailOf(listing));
    expect(detail.body.status).toBe("paused");
    const during = await catalogue(keys.changes);
    expect(during.listings.map((one) => one.id)).not.toContain(listing.id);
    expect(during.total).toBe(before.total - 1);
    expect((await get("/v1/listings?category=research", keys.changes)).body.total).toBe(0);

    listing.lastUpdated = await send(
      stack.marketplace.as(pauseCo).write.setListingActive([listing.onChainId, true]),
    );
    listing.status = "active";
    expect((await get(`/v1/listings/${listing.id}`, keys.changes)).body).toEqual(detailOf(listing));
    const after = await get("/v1/listings?category=research", keys.changes);
    expect(after.body.listings).toEqual([summaryOf(listing)]);
  });

  it("keeps a closed listing in detail as closed and out of search", async () => {
    const listing = await publish({
      creator: pauseCo,
      seed: "closed",
      model: PER_QUERY,
      priceEth: "0.0003",
      manifest: {
        name: "tax-helper",
        title: "Tax Helper",
        category: "finance",
        description: "Answers questions about VAT on invoices.",
        sample_output: ["Reverse charge applies."],
        creator_display_name: "Pause Co",
      },
    });
    expect((await get("/v1/listings?q=vat", keys.changes)).body.total).toBe(1);

    listing.lastUpdated = await send(
      stack.marketplace.as(pauseCo).write.closeListing([listing.onChainId]),
    );
    listing.status = "closed";
    const detail = await get(`/v1/listings/${listing.id}`, keys.changes);
    expect(detail.body).toEqual(detailOf(listing));
    expect(detail.body.status).toBe("closed");
    expect((await get("/v1/listings?q=vat", keys.changes)).body).toEqual({
      listings: [],
      total: 0,
      limit: 20,
      offset: 0,
    });
    const all = await catalogue(keys.changes);
    expect(all.listings.map((one) => one.id)).not.toContain(listing.id);
    expect(all.total).toBe(published.filter((one) => one.status === "active").length);
  });
});

describe("listings that are not found", () => {
  it("answers 404 listing_not_found for an id no listing has", async () => {
    const unknown = `lst_${randomBytes(32).toString("hex")}`;
    expectError(await get(`/v1/listings/${unknown}`, keys.missing), 404, "listing_not_found");
  });

  it("never shows a listing created on-chain without a registered agent", async () => {
    const unregistered = await publish({
      creator: anonymous,
      seed: "unregistered",
      model: ONE_TIME,
      priceEth: "0.01",
      registered: false,
      manifest: { name: "ghost", category: "coding", description: "Never registered" },
    });
    expectError(
      await get(`/v1/listings/${unregistered.id}`, keys.missing),
      404,
      "listing_not_found",
    );
    const all = await catalogue(keys.missing);
    expect(all.listings.map((one) => one.id)).not.toContain(unregistered.id);
    expect(all.total).toBe(published.filter((one) => one.status === "active").length);
    // Nor does it count towards its creator's listings.
    const sibling = await get(`/v1/listings/${leadFinder.id}`, keys.missing);
    expect(sibling.body.creator.listing_count).toBe(activeListingCount(anonymous));
  });

  it("never shows a registered agent whose listing was not created on-chain", async () => {
    const seed = seedOf("registered-only");
    const onChainId = await stack.marketplace
      .as(anonymous)
      .read.deriveListingId([anonymous.address, seed]);
    await saveAgent(stack.db, {
      agentId: `pending-agent-${onChainId.slice(2, 10)}`,
      onChainListingId: onChainId,
      creator: anonymous.address,
      publicManifest: { name: "pending-agent", category: "coding", description: "Pending" },
      metadataUri: METADATA_URI,
    });
    const id = toApiListingId(onChainId);
    expectError(await get(`/v1/listings/${id}`, keys.missing), 404, "listing_not_found");
    expect((await get("/v1/listings?q=pending", keys.missing)).body.total).toBe(0);
  });

  it("answers 404 listing_not_found for a malformed id", async () => {
    const hex = analyst.onChainId.slice(2);
    for (const malformed of [
      hex, // no prefix
      analyst.onChainId, // the on-chain 0x form
      `lst_${hex.toUpperCase()}`,
      `lst_${hex.slice(1)}`, // 63 hex digits
      `lst_${hex}0`, // 65
      `lst_${"g".repeat(64)}`,
      "market-analyst",
    ]) {
      expectError(await get(`/v1/listings/${malformed}`, keys.missing), 404, "listing_not_found");
    }
  });
});

describe("invalid search parameters", () => {
  it.each([
    ["q", "q="],
    ["q", `q=${"a".repeat(201)}`],
    ["category", "category=robotics"],
    ["category", "category=Finance"],
    ["rental_model", "rental_model=hourly"],
    ["min_price", "min_price=-1"],
    ["min_price", "min_price=cheap"],
    ["min_price", "min_price=0.0000000000000000001"],
    ["max_price", "max_price=1e3"],
    ["max_price", "max_price=-0.5"],
    ["min_price", "min_price=0.1&max_price=0.05"],
    ["min_rating", "min_rating=5.5"],
    ["min_rating", "min_rating=-1"],
    ["min_rating", "min_rating=high"],
    ["sort", "sort=popular"],
    ["sort", "sort="],
    ["limit", "limit=0"],
    ["limit", "limit=101"],
    ["limit", "limit=2.5"],
    ["limit", "limit=ten"],
    ["offset", "offset=-1"],
    ["offset", "offset=first"],
  ])("answers 400 invalid_request naming %s for ?%s", async (param, query) => {
    const reply = await get(`/v1/listings?${query}`, keys.validation);
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error.message).toContain(param);
  });

  it("accepts the bounds of each parameter", async () => {
    for (const query of [
      "limit=1",
      "limit=100",
      "offset=0",
      "min_rating=0",
      "min_rating=5",
      "min_price=0&max_price=0",
      "min_price=0.05&max_price=0.05",
      "min_price=0.000000000000000001",
    ]) {
      expect((await get(`/v1/listings?${query}`, keys.validation)).status, query).toBe(200);
    }
    const exact = await get("/v1/listings?min_price=0.05&max_price=0.05", keys.validation);
    expect(exact.body.listings.map((one: { id: string }) => one.id)).toEqual([analyst.id]);
  });
});

describe("authentication", () => {
  const paths = () => ["/v1/listings", `/v1/listings/${analyst.id}`];

  it("answers 401 unauthorized without an Authorization header", async () => {
    for (const path of paths()) expectError(await get(path), 401, "unauthorized");
  });

  it("answers 401 unauthorized to a header that is not a bearer token, or a bad token", async () => {
    const wrongSecret = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(renter.address.toLowerCase())
      .setIssuer("intl")
      .setAudience("intl-api")
      .setExpirationTime("1h")
      .sign(randomBytes(32));
    for (const path of paths()) {
      expectError(await get(path, `Basic ${btoa("renter:secret")}`), 401, "unauthorized");
      expectError(await get(path, "not-a-token"), 401, "unauthorized");
      expectError(await get(path, wrongSecret), 401, "unauthorized");
    }
  });

  it("answers 401 invalid_api_key to an unknown, revoked or other-network key", async () => {
    const { id, key } = await createApiKey(stack.api.url, renter, "to revoke");
    const token = await signIn(stack.api.url, renter);
    const revoked = await fetch(`${stack.api.url}/v1/api-keys/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(200);
    const unknown = `intl_test_${"A".repeat(43)}`;
    const live = `intl_live_${key.slice("intl_test_".length)}`;
    for (const path of paths()) {
      for (const bad of [key, unknown, live])
        expectError(await get(path, bad), 401, "invalid_api_key");
    }
  });

  it("answers 401 jwt_expired to an expired wallet token", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(renter.address.toLowerCase())
      .setIssuer("intl")
      .setAudience("intl-api")
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(new TextEncoder().encode(JWT_SECRET));
    for (const path of paths()) expectError(await get(path, expired), 401, "jwt_expired");
  });
});

describe("rate limit", () => {
  it("answers 429 rate_limit_exceeded with Retry-After past 100 requests a minute", async () => {
    const { key } = await createApiKey(stack.api.url, renter, "burst");
    const first = await get("/v1/listings?limit=1", key);
    expect(first.headers.get("x-ratelimit-limit")).toBe("100");
    expect(Number(first.headers.get("x-ratelimit-remaining"))).toBe(99);
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);

    // 250 more: even if a minute's window turns over mid-burst, one window sees more than 100.
    const burst = await Promise.all(
      Array.from({ length: 250 }, () => get("/v1/listings?limit=1", key)),
    );
    const limited = burst.filter((reply) => reply.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(burst.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true);
    for (const reply of limited) {
      expectError(reply, 429, "rate_limit_exceeded");
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(reply.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      expect(reply.headers.get("x-ratelimit-remaining")).toBe("0");
    }
  });
});

describe("every response", () => {
  it("carried its own X-Request-Id", () => {
    expect(requestIds.length).toBeGreaterThan(100);
    expect(new Set(requestIds).size).toBe(requestIds.length);
  });
});
