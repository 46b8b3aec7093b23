// GET /v1/listings and GET /v1/listings/:id over HTTP against the whole stack: every field of the
// spec's summary and detail shapes, how on-chain changes show, and every error either can return.
import { randomBytes } from "node:crypto";
import { parseEther, toHex } from "viem";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { METADATA_URI, ONE_TIME, PER_QUERY, SUBSCRIPTION } from "../../devStack/marketplace.ts";
import { type PublicManifest, titleFromName } from "../../lib/agents/saveAgent.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { rentalModelName } from "../../lib/marketplace/vocabulary.ts";
import { describeAuthenticatedEndpoints } from "../support/authenticatedEndpoints.ts";
import { checkedHttp } from "../support/checkedHttp.ts";
import { expectError, signIn } from "../support/http.ts";
import { INVALID_PAGES, itRefusesInvalidQueries } from "../support/invalidQueries.ts";
import { createKeysByLabel } from "../support/keysByLabel.ts";
import {
  isoOf,
  type ListingDraft,
  type ListingIds,
  listingIdsOf,
  publishListings,
  registerAgent,
  shortAddress,
} from "../support/listingFixtures.ts";
import { mineIndexedBlock, type Transaction, transaction } from "../support/mineBlock.ts";
import { useStack } from "../support/useStack.ts";

const authority = devAccount(0);
const quantWorks = devAccount(2); // creator with a display name
const anonymous = devAccount(3); // creator without one: shown by a shortened address
const pauseCo = devAccount(4); // creator whose listings get paused, closed, updated
const renter = devAccount(7);

const stack = useStack({ api: 1 });
const api = checkedHttp(() => stack().api.url);
const KEY_OWNERS = { catalogue: renter, changes: renter, missing: renter, validation: renter };
let keys: Record<keyof typeof KEY_OWNERS, string>;

// ─── Listings as the test tracks them ───────────────────────────────────────

type Published = ListingIds &
  Omit<ListingDraft, "price" | "registered"> & {
    priceEth: string;
    metadataUri: string;
    status: "active" | "paused" | "closed";
    publishedAt: string;
    lastUpdated: string;
    runs: { succeeded: number; failed: number };
  };

const published: Published[] = [];

type Draft = Omit<ListingDraft, "price"> & { priceEth: string };

/**
 * Lists agents as creators do, in one block (at `timestamp`, if given): each public manifest
 * stored through the registration code path (but with `registered: false`), then `createListing`.
 */
async function publish(drafts: Draft[], options: { timestamp?: bigint } = {}) {
  const { listings, block } = await publishListings(
    stack(),
    drafts.map((draft) => ({ ...draft, price: parseEther(draft.priceEth) })),
    options,
  );
  return drafts.map(({ registered, ...draft }, n): Published => {
    const listing: Published = {
      ...(listings[n] as ListingIds),
      ...draft,
      metadataUri: METADATA_URI,
      status: "active",
      publishedAt: isoOf(block.timestamp),
      lastUpdated: isoOf(block.timestamp),
      runs: { succeeded: 0, failed: 0 },
    };
    if (registered !== false) published.push(listing);
    return listing;
  });
}

/** Mines `transactions` in one block, waits for the indexer and returns the block's time. */
async function mined(...transactions: Transaction[]): Promise<string> {
  return isoOf((await mineIndexedBlock(stack(), transactions)).timestamp);
}

/** How each creator signs their manifests; the anonymous creator does not. */
const DISPLAY_NAMES = new Map([
  [quantWorks, "Quant Works"],
  [pauseCo, "Pause Co"],
]);

/** A listing as `creator` writes it: seeded by its agent's name, signed with their display name. */
function draft(creator: HDAccount, model: number, priceEth: string, agent: PublicManifest): Draft {
  const displayName = DISPLAY_NAMES.get(creator);
  const signature = displayName ? { creator_display_name: displayName } : {};
  return { creator, seed: agent.name, model, priceEth, manifest: { ...agent, ...signature } };
}

/** Publishes one listing `creator` writes, in a block of its own. */
async function publishOne(...args: Parameters<typeof draft>): Promise<Published> {
  return (await publish([draft(...args)]))[0] as Published;
}

/** What the catalogue says of a creator: their published listings that are active. */
function activeListingCount(creator: HDAccount) {
  return published.filter((one) => one.creator === creator && one.status === "active").length;
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
    rental_model: rentalModelName(listing.model),
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
    ...versionShown(listing.metadataUri),
    purchase: purchaseOf(listing.model, listing.onChainId, parseEther(listing.priceEth)),
  };
}

/** Every agent here is registered with METADATA_URI only: any other on-chain URI names no version. */
function versionShown(metadataUri: string) {
  return {
    manifest_status: metadataUri === METADATA_URI ? "current" : "unrecognized",
    shown_metadata_uri: METADATA_URI,
  };
}

/** The detail's `purchase`, its calls as api/listings/purchaseCalls.test.ts specifies them. */
function purchaseOf(model: number, onChainId: string, price: bigint) {
  const rentalModel = rentalModelName(model);
  const firstOption = {
    one_time: { function_name: "purchaseOneTime", args: [onChainId] },
    subscription: { function_name: "purchaseSubscription", args: [onChainId, "2592000"] },
    per_query: { function_name: "purchasePerQuery", args: [onChainId, price.toString()] },
  }[rentalModel];
  return {
    chain_id: 31337,
    contract_address: stack().deployment.address,
    rental_model: rentalModel,
    options: expect.arrayContaining([
      expect.objectContaining({ ...firstOption, value: price.toString() }),
    ]),
    extend_options: expect.any(Array),
  };
}

/** Every active listing in one page (the file never publishes more than 100). */
async function catalogue(bearer: string) {
  const reply = await api.get("/v1/listings?limit=100", { bearer });
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

/** The analyst's listing with every field spelled out as the spec names it, whole description. */
const analystAsSpecified = () => ({
  id: `lst_${analyst.onChainId.slice(2)}`,
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
});

async function publishCatalogue() {
  [analyst, reviewer] = (await publish([
    draft(quantWorks, ONE_TIME, "0.05", {
      name: "market-analyst",
      title: "Market Analyst Pro",
      category: "finance",
      description: LONG_DESCRIPTION,
      sample_output: ["AAPL: bullish (0.72)", "TSLA: neutral (0.51)", "NVDA: bearish (0.64)"],
    }),
    draft(quantWorks, SUBSCRIPTION, "0.01", {
      name: "contract-reviewer",
      category: "legal",
      description: "Flags one-sided clauses in NDAs and service agreements.",
      sample_output: ["Clause 4.2 caps liability for one party only."],
    }),
  ])) as [Published, Published];
  // A second later, so newest-first orders by time as well as by id.
  [leadFinder] = (await publish(
    [
      draft(anonymous, PER_QUERY, "0.000001", {
        name: "lead-finder",
        title: "Lead Finder",
        category: "sales",
        description: DESCRIPTION_AT_LIMIT,
        sample_output: ["Jane Doe, VP Sales, Example Corp"],
      }),
    ],
    { timestamp: BigInt(Date.parse(analyst.publishedAt) / 1000) + 1n },
  )) as [Published];
}

beforeAll(async () => {
  expect(DESCRIPTION_AT_LIMIT).toHaveLength(280);
  [keys] = await Promise.all([createKeysByLabel(stack().api.url, KEY_OWNERS), publishCatalogue()]);
}, 180_000);

// ─── Tests ───────────────────────────────────────────────────────────────────

describe("GET /v1/listings", () => {
  it("returns the active published listings as summaries, newest first, with paging echoed", async () => {
    const reply = await api.get("/v1/listings", { bearer: keys.catalogue });
    expect(reply.status).toBe(200);
    // Without q, relevance is publication time, newest first (ties by on-chain id).
    const newestFirst = [analyst, reviewer, leadFinder].sort(
      (a, b) => b.publishedAt.localeCompare(a.publishedAt) || (a.onChainId < b.onChainId ? -1 : 1),
    );
    expect(newestFirst[0]).toBe(leadFinder);
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
    const reply = await api.get("/v1/listings?q=ticker&limit=5", { bearer: keys.catalogue });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      listings: [
        {
          ...analystAsSpecified(),
          description: `${LONG_DESCRIPTION.slice(0, 279).trimEnd()}…`,
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
    const reply = await api.get("/v1/listings?category=sales", { bearer: keys.catalogue });
    expect(reply.body.listings).toEqual([summaryOf(leadFinder)]);
    expect(reply.body.listings[0].description).toBe(DESCRIPTION_AT_LIMIT);
  });

  it("names a creator without a display name by a shortened address", async () => {
    const reply = await api.get(`/v1/listings/${leadFinder.id}`, { bearer: keys.catalogue });
    expect(reply.body.creator).toEqual({
      id: anonymous.address.toLowerCase(),
      display_name: `${anonymous.address.slice(0, 6)}…${anonymous.address.slice(-4)}`,
      listing_count: 1,
    });
  });

  it("answers the same to a wallet-signature JWT as to an API key", async () => {
    const token = await signIn(stack().api.url, renter);
    const withToken = await api.get("/v1/listings?sort=price_asc", { bearer: token });
    const withKey = await api.get("/v1/listings?sort=price_asc", { bearer: keys.catalogue });
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
    const reply = await api.get(`/v1/listings/${analyst.id}`, { bearer: keys.catalogue });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      ...analystAsSpecified(),
      published_at: analyst.publishedAt,
      status: "active",
      on_chain_id: analyst.onChainId,
      metadata_uri: METADATA_URI,
      ...versionShown(METADATA_URI),
      purchase: {
        chain_id: 31337,
        contract_address: stack().deployment.address,
        rental_model: "one_time",
        options: [
          {
            function_name: "purchaseOneTime",
            args: [analyst.onChainId],
            value: "50000000000000000",
          },
        ],
        extend_options: [],
      },
    });
    expect(reply.body.on_chain_id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(reply.body.id).toBe(`lst_${reply.body.on_chain_id.slice(2)}`);
  });

  it("shows the other rental models' listings in detail", async () => {
    for (const listing of [reviewer, leadFinder]) {
      const reply = await api.get(`/v1/listings/${listing.id}`, { bearer: keys.catalogue });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(detailOf(listing));
    }
    expect(detailOf(reviewer).title).toBe("Contract Reviewer");
  });
});

describe("on-chain changes as the API shows them", () => {
  const detail = (listing: Published) =>
    api.get(`/v1/listings/${listing.id}`, { bearer: keys.changes });
  const search = (query: string) => api.get(`/v1/listings?${query}`, { bearer: keys.changes });
  /**
   * What `read` answers once it passes `check`, asked again for up to 5 s as a client following its
   * transaction does: the API hears of an indexed block by Ponder's notice, which a request sent as
   * soon as Ponder's `/status` shows the block can overtake (docs/decisions.md, "Catalogue answers in
   * the process").
   */
  async function onceShown<T>(read: () => Promise<T>, check: (answer: T) => void): Promise<T> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const answer = await read();
      try {
        check(answer);
        return answer;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it("shows a new price and metadata URI after updateListing; published_at stays", async () => {
    const listing = await publishOne(pauseCo, SUBSCRIPTION, "0.2", {
      name: "grant-writer",
      category: "content",
      description: "Drafts grant proposals from a project summary.",
    });
    const newUri = "ipfs://bafkreiupdatedgrantwritermanifest";
    listing.lastUpdated = await mined(
      transaction(pauseCo, (market) =>
        market.write.updateListing([listing.onChainId, parseEther("0.125"), newUri]),
      ),
    );
    listing.priceEth = "0.125";
    listing.metadataUri = newUri;

    const updated = await onceShown(
      () => detail(listing),
      (answer) => expect(answer.body).toEqual(detailOf(listing)),
    );
    expect(updated.body.price_eth).toBe(0.125);
    expect(updated.body.published_at).toBe(listing.publishedAt);
    expect(updated.body.last_updated >= updated.body.published_at).toBe(true);

    await onceShown(
      () => search("category=content"),
      (answer) => expect(answer.body.listings).toEqual([summaryOf(listing)]),
    );
  });

  it("counts runs anchors count and per-task debits in run_count and success_rate", async () => {
    const [oneTime, perTask] = (await publish([
      draft(quantWorks, ONE_TIME, "0.01", {
        name: "run-counter",
        category: "coding",
        description: "Counts runs.",
      }),
      draft(anonymous, PER_QUERY, "0.001", {
        name: "task-counter",
        category: "coding",
        description: "Counts debited tasks.",
      }),
    ])) as [Published, Published];
    const byAuthority = (send: Transaction["send"]) => transaction(authority, send);

    // Three successes and a failure, counted by an anchor the authority sends; the same root sent
    // again counts nothing twice. A deposit for three tasks alongside.
    const anchor = [
      toHex(randomBytes(32)),
      [{ listingId: oneTime.onChainId, runs: 4, failed: 1 }],
    ] as const;
    await mined(
      byAuthority((market) => market.write.settle([[], ...anchor])),
      byAuthority((market) => market.write.settle([[], ...anchor])),
      transaction(renter, (market) =>
        market.write.purchasePerQuery([perTask.onChainId, parseEther("0.001")], {
          value: parseEther("0.003"),
        }),
      ),
    );
    oneTime.runs = { succeeded: 3, failed: 1 };
    // Two debited tasks (each a completed run), then a failed run counted by an anchor.
    const taskPrice = parseEther("0.001");
    await mined(
      byAuthority((market) =>
        market.write.consumeQuery([perTask.onChainId, renter.address, 10n, taskPrice, true]),
      ),
      byAuthority((market) =>
        market.write.consumeQuery([perTask.onChainId, renter.address, 11n, taskPrice, true]),
      ),
      byAuthority((market) =>
        market.write.settle([
          [],
          toHex(randomBytes(32)),
          [{ listingId: perTask.onChainId, runs: 1, failed: 1 }],
        ]),
      ),
    );
    perTask.runs = { succeeded: 2, failed: 1 };

    const first = await onceShown(
      () => detail(oneTime),
      (answer) => expect(answer.body).toEqual(detailOf(oneTime)),
    );
    expect(first.body).toMatchObject({ run_count: 4, success_rate: 0.75 });
    const second = await onceShown(
      () => detail(perTask),
      (answer) => expect(answer.body).toEqual(detailOf(perTask)),
    );
    expect(second.body).toMatchObject({ run_count: 3, success_rate: 2 / 3 });

    await onceShown(
      () => search("category=coding&sort=price_desc"),
      (answer) => expect(answer.body.listings).toEqual([summaryOf(oneTime), summaryOf(perTask)]),
    );
  });

  it("keeps a paused listing in detail as paused, out of search, and back once reactivated", async () => {
    const listing = await publishOne(pauseCo, ONE_TIME, "0.02", {
      name: "paper-summarizer",
      category: "research",
      description: "Summarizes research papers.",
    });
    const setActive = (active: boolean) =>
      mined(
        transaction(pauseCo, (market) =>
          market.write.setListingActive([listing.onChainId, active]),
        ),
      );
    const before = await catalogue(keys.changes);
    expect(before.listings.map((one) => one.id)).toContain(listing.id);

    listing.lastUpdated = await setActive(false);
    listing.status = "paused";
    const paused = await onceShown(
      () => detail(listing),
      (answer) => expect(answer.body).toEqual(detailOf(listing)),
    );
    expect(paused.body.status).toBe("paused");
    const during = await onceShown(
      () => catalogue(keys.changes),
      (answer) => expect(answer.listings.map((one) => one.id)).not.toContain(listing.id),
    );
    expect(during.total).toBe(before.total - 1);
    await onceShown(
      () => search("category=research"),
      (answer) => expect(answer.body.total).toBe(0),
    );

    listing.lastUpdated = await setActive(true);
    listing.status = "active";
    await onceShown(
      () => detail(listing),
      (answer) => expect(answer.body).toEqual(detailOf(listing)),
    );
    await onceShown(
      () => search("category=research"),
      (answer) => expect(answer.body.listings).toEqual([summaryOf(listing)]),
    );
  });

  it("keeps a closed listing in detail as closed and out of search", async () => {
    const listing = await publishOne(pauseCo, PER_QUERY, "0.0003", {
      name: "tax-helper",
      category: "finance",
      description: "Answers questions about VAT on invoices.",
    });
    expect((await search("q=vat")).body.total).toBe(1);

    listing.lastUpdated = await mined(
      transaction(pauseCo, (market) => market.write.closeListing([listing.onChainId])),
    );
    listing.status = "closed";
    const closed = await onceShown(
      () => detail(listing),
      (answer) => expect(answer.body).toEqual(detailOf(listing)),
    );
    expect(closed.body.status).toBe("closed");
    await onceShown(
      () => search("q=vat"),
      (answer) => expect(answer.body).toEqual({ listings: [], total: 0, limit: 20, offset: 0 }),
    );
    const all = await onceShown(
      () => catalogue(keys.changes),
      (answer) => expect(answer.listings.map((one) => one.id)).not.toContain(listing.id),
    );
    expect(all.total).toBe(published.filter((one) => one.status === "active").length);
  });
});

describe("listings that are not found", () => {
  const detail = (id: string) => api.get(`/v1/listings/${id}`, { bearer: keys.missing });

  it("answers 404 listing_not_found for an id no listing has", async () => {
    const unknown = `lst_${randomBytes(32).toString("hex")}`;
    expectError(await detail(unknown), 404, "listing_not_found");
  });

  it("never shows a listing created on-chain without a registered agent", async () => {
    const [unregistered] = (await publish([
      {
        ...draft(anonymous, ONE_TIME, "0.01", {
          name: "ghost",
          category: "coding",
          description: "Never registered",
        }),
        registered: false,
      },
    ])) as [Published];
    expectError(await detail(unregistered.id), 404, "listing_not_found");
    const all = await catalogue(keys.missing);
    expect(all.listings.map((one) => one.id)).not.toContain(unregistered.id);
    expect(all.total).toBe(published.filter((one) => one.status === "active").length);
    // Nor does it count towards its creator's listings.
    const sibling = await detail(leadFinder.id);
    expect(sibling.body.creator.listing_count).toBe(activeListingCount(anonymous));
  });

  it("never shows a registered agent whose listing was not created on-chain", async () => {
    const pending: ListingDraft = {
      creator: anonymous,
      seed: "registered-only",
      model: ONE_TIME,
      price: parseEther("0.01"),
      manifest: { name: "pending-agent", category: "coding", description: "Pending" },
    };
    await registerAgent(stack().db, pending);
    expectError(await detail(listingIdsOf(pending).id), 404, "listing_not_found");
    const search = await api.get("/v1/listings?q=pending", { bearer: keys.missing });
    expect(search.body.total).toBe(0);
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
      expectError(await detail(malformed), 404, "listing_not_found");
    }
  });
});

describe("invalid search parameters", () => {
  itRefusesInvalidQueries(api, "/v1/listings", () => keys.validation, [
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
    ...INVALID_PAGES,
  ]);

  it("accepts the bounds of each parameter", async () => {
    const queries = [
      "limit=1",
      "limit=100",
      "offset=0",
      "min_rating=0",
      "min_rating=5",
      "min_price=0&max_price=0",
      "min_price=0.05&max_price=0.05",
      "min_price=0.000000000000000001",
    ];
    const replies = await Promise.all(
      queries.map((query) => api.get(`/v1/listings?${query}`, { bearer: keys.validation })),
    );
    for (const [n, reply] of replies.entries()) expect(reply.status, queries[n]).toBe(200);
    const exact = replies[queries.indexOf("min_price=0.05&max_price=0.05")];
    expect(exact?.body.listings.map((one: { id: string }) => one.id)).toEqual([analyst.id]);
  });
});

describeAuthenticatedEndpoints("GET /v1/listings and /v1/listings/:id", {
  api,
  apiUrl: () => stack().api.url,
  paths: () => ["/v1/listings", `/v1/listings/${analyst.id}`],
  wallet: renter,
  rateLimitPerMinute: 100,
});

describe("every response", () => {
  it("carried its own X-Request-Id", () => {
    expect(api.requestIds.length).toBeGreaterThan(100);
    expect(new Set(api.requestIds).size).toBe(api.requestIds.length);
  });
});
