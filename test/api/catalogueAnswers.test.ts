// An API process keeps catalogue answers in memory until the catalogue changes: a change (a block the
// indexer committed, an agent registered, a rating changed by a review) reaches the requests that
// follow it by a Postgres notice,
// and any change shows in search answers within CATALOGUE_ANSWER_MAX_AGE_MS.
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOGUE_ANSWER_MAX_AGE_MS } from "../../api/limits.ts";
import { type CatalogueCache, createCatalogueCache } from "../../api/listings/catalogueCache.ts";
import {
  createPostgresListener,
  type PostgresListener,
} from "../../api/process/postgresListener.ts";
import { saveReview } from "../../api/reviews/saveReview.ts";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { createLogger } from "../../lib/log.ts";
import { http, signIn } from "../support/http.ts";
import {
  agentDrafts,
  listingIdsOf,
  publishListings,
  registerAgent,
} from "../support/listingFixtures.ts";
import { mineIndexedBlock, transaction } from "../support/mineBlock.ts";
import { useStack } from "../support/useStack.ts";

/** How soon a notice must be heard (here, answers are never reloaded for their age alone). */
const NOTICED_WITHIN_MS = 250;

const stack = useStack({ api: 1 });
const creator = devAccount(8);
const renter = devAccount(9);
const draft = agentDrafts(creator, {
  seedPrefix: "catalogue-answers",
  category: "research",
  described: "kept while nothing changes",
});
const kept = draft("kept-answer", ONE_TIME, parseEther("0.01"));
const late = { ...draft("late-registration", ONE_TIME, parseEther("0.02")), registered: false };

let api: ReturnType<typeof http>;
let listener: PostgresListener;
let catalogue: CatalogueCache;
beforeAll(async () => {
  await publishListings(stack(), [kept, late]);
  api = http(stack().api.url, { bearer: await signIn(stack().api.url, renter) });
  listener = createPostgresListener({
    databaseUrl: stack().postgres.databaseUrl,
    log: createLogger("test", () => {}),
  });
  catalogue = createCatalogueCache({
    listener,
    viewsSchema: stack().ponder.viewsSchema,
    maxAgeMs: Number.POSITIVE_INFINITY,
  });
  listener.start();
  await listener.whenListening();
});
afterAll(() => listener?.stop());

/** How many of `times` requests arriving together loaded the answer under `key`. */
async function loadsOf(key: string, times = 1) {
  let loads = 0;
  await Promise.all(
    Array.from({ length: times }, () => catalogue.answer(key, async () => ++loads)),
  );
  return loads;
}

/** Waits at most `withinMs` for `check` to pass. */
async function within(withinMs: number, check: () => Promise<unknown>) {
  await expect.poll(check, { timeout: withinMs, interval: 10 }).toBe(true);
}

function updatePrice(eth: string) {
  return mineIndexedBlock(stack(), [
    transaction(creator, (market) =>
      market.write.updateListing([listingIdsOf(kept).onChainId, parseEther(eth), "ipfs://x"]),
    ),
  ]);
}

describe("catalogue answers kept in the process", () => {
  it("loads an answer once for requests arriving together, and keeps it while nothing changes", async () => {
    expect(await loadsOf("together", 20)).toBe(1);
    expect(await loadsOf("together")).toBe(0);
  });

  it("loads again once the indexer committed a block", async () => {
    await loadsOf("block");
    await updatePrice("0.03");
    await within(NOTICED_WITHIN_MS, async () => (await loadsOf("block")) === 1);
  });

  it("loads again once an agent was registered", async () => {
    await loadsOf("agent");
    await registerAgent(stack().db, draft("another-agent", ONE_TIME, parseEther("0.01")));
    await within(NOTICED_WITHIN_MS, async () => (await loadsOf("agent")) === 1);
  });

  it("loads again once a review changed a listing's rating", async () => {
    await loadsOf("rating");
    await saveReview(stack().db, {
      onChainListingId: listingIdsOf(kept).onChainId,
      wallet: renter.address,
      rating: 4,
      text: "Kept well",
    });
    await within(NOTICED_WITHIN_MS, async () => (await loadsOf("rating")) === 1);
  });

  it("keeps nothing while it is not listening", async () => {
    const deaf = createPostgresListener({
      databaseUrl: stack().postgres.databaseUrl,
      log: createLogger("test", () => {}),
    });
    const unkept = createCatalogueCache({ listener: deaf, viewsSchema: "marketplace" });
    let loads = 0;
    for (let i = 0; i < 3; i++) await unkept.answer("deaf", async () => ++loads);
    expect(loads).toBe(3);
  });
});

describe("search answers after a change, from an API process", () => {
  const search = async (q: string) => (await api.get(`/v1/listings?q=${q}`)).body;

  it("shows an indexed change", async () => {
    expect((await search("kept")).listings[0].price_eth).not.toBe(0.05);
    await updatePrice("0.05");
    await within(
      CATALOGUE_ANSWER_MAX_AGE_MS,
      async () => (await search("kept")).listings[0].price_eth === 0.05,
    );
  });

  it("shows an agent registered after its listing was indexed", async () => {
    expect((await search("late")).total).toBe(0);
    await registerAgent(stack().db, late);
    await within(
      CATALOGUE_ANSWER_MAX_AGE_MS,
      async () => (await search("late")).listings[0]?.id === listingIdsOf(late).id,
    );
  });
});
