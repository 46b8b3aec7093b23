// Reviews over HTTP against the whole stack: who may review (a credential and a completed run),
// one review per wallet edited in place, the average in search and detail at once, the creator's
// one reply, and the bounds on what and how often a wallet writes.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { inOneWindow, WAITS_FOR_A_WINDOW_MS } from "../support/inOneWindow.ts";
import { agentDrafts, oneTimePurchase, publishListings } from "../support/listingFixtures.ts";
import { mineBlock, mineIndexedBlock } from "../support/mineBlock.ts";
import { insertCompletedRun } from "../support/runs.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 1 });
const creator = devAccount(2);
const alice = devAccount(3);
const bob = devAccount(4);
const carol = devAccount(5);
const dave = devAccount(6);
const erin = devAccount(7);
const frank = devAccount(8);
const grace = devAccount(9);
const PRICE = parseEther("0.01");
const draft = agentDrafts(creator, {
  seedPrefix: "reviews",
  category: "research",
  described: "reviewed by its renters",
});
const reviewed = draft("zephyr-reviewed", ONE_TIME, PRICE);
let listingId: string;
let onChainId: string;
const WALLETS = { creator, alice, bob, carol, dave, erin, frank, grace };
const clients = new Map<string, ReturnType<typeof http>>();
/** The API as `who` calls it, signed in. */
const as = (who: keyof typeof WALLETS) => clients.get(who) as ReturnType<typeof http>;

beforeAll(async () => {
  const { listings } = await publishListings(stack(), [reviewed]);
  ({ id: listingId, onChainId } = listings[0] as { id: string; onChainId: string });
  const listing = { id: listingId, onChainId: onChainId as `0x${string}` };
  // Alice, Bob, Erin and Frank rent and complete a run; Carol rents but never completed one; Dave
  // never rents. The creator rents its own listing and completes a run on it too.
  await mineIndexedBlock(
    stack(),
    [alice, bob, carol, erin, frank, creator].map((renter) =>
      oneTimePurchase(renter, listing, PRICE),
    ),
  );
  for (const renter of [alice, bob, erin, frank, creator]) {
    await insertCompletedRun(stack().db, { wallet: renter.address, listing: onChainId });
  }
  const url = stack().api.url;
  for (const [name, account] of Object.entries(WALLETS)) {
    clients.set(name, http(url, { bearer: await signIn(url, account) }));
  }
});

const reviewsPath = () => `/v1/listings/${listingId}/reviews`;
const review = (who: keyof typeof WALLETS, body: unknown) => as(who).post(reviewsPath(), body);
const detail = async () => (await as("dave").get(`/v1/listings/${listingId}`)).body;
const found = async () =>
  (await as("dave").get("/v1/listings?q=zephyr")).body.listings.find(
    (listing: { id: string }) => listing.id === listingId,
  );

describe("who may review", () => {
  it("refuses a wallet without a completed run, one without a credential, and the creator, whose own runs prove nothing", async () => {
    for (const who of ["carol", "dave", "creator"] as const) {
      expectError(await review(who, { rating: 5, text: "Great" }), 403, "review_not_allowed");
    }
    expect((await as("dave").get(reviewsPath())).body).toEqual({
      reviews: [],
      total: 0,
      limit: 20,
      offset: 0,
    });
  });

  it("takes the review of a wallet that rented and completed a run, in search and detail at once", async () => {
    const response = await review("alice", { rating: 5, text: "Exactly what\nI needed" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^rev_[0-9a-f]{24}$/),
      listing_id: listingId,
      wallet: alice.address.toLowerCase(),
      rating: 5,
      text: "Exactly what\nI needed",
      created_at: expect.any(String),
      updated_at: response.body.created_at,
      reply: null,
    });
    // No wait: the next request of the process that took the review shows it.
    expect(await found()).toMatchObject({ rating: 5, review_count: 1 });
    expect(await detail()).toMatchObject({ rating: 5, review_count: 1 });
  });
});

describe("one review per wallet", () => {
  it("averages the wallets' reviews, and an edit replaces the wallet's review", async () => {
    expect((await review("bob", { rating: 2, text: "Slow" })).status).toBe(200);
    expect(await found()).toMatchObject({ rating: 3.5, review_count: 2 });
    const edited = await review("bob", { rating: 4, text: "Faster now" });
    expect(edited.status).toBe(200);
    expect(edited.body.updated_at > edited.body.created_at).toBe(true);
    expect(await found()).toMatchObject({ rating: 4.5, review_count: 2 });
    expect(await detail()).toMatchObject({ rating: 4.5, review_count: 2 });

    const page = (await as("dave").get(reviewsPath())).body;
    expect(page.total).toBe(2);
    // The last written first.
    expect(
      page.reviews.map((one: { wallet: string; text: string }) => [one.wallet, one.text]),
    ).toEqual([
      [bob.address.toLowerCase(), "Faster now"],
      [alice.address.toLowerCase(), "Exactly what\nI needed"],
    ]);
    const second = (await as("dave").get(`${reviewsPath()}?limit=1&offset=1`)).body;
    expect(second).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(second.reviews.map((one: { wallet: string }) => one.wallet)).toEqual([
      alice.address.toLowerCase(),
    ]);
  });
});

describe("the creator's reply", () => {
  it("is taken once per review, from the creator alone", async () => {
    const [first] = (await as("dave").get(reviewsPath())).body.reviews;
    const replyPath = `${reviewsPath()}/${first.id}/reply`;
    expectError(await as("alice").post(replyPath, { text: "Me too" }), 403, "forbidden");
    const replied = await as("creator").post(replyPath, { text: "Thanks for the feedback" });
    expect(replied.status).toBe(200);
    expect(replied.body.reply).toEqual({
      text: "Thanks for the feedback",
      created_at: expect.any(String),
    });
    expectError(
      await as("creator").post(replyPath, { text: "Again" }),
      409,
      "review_already_replied",
    );
    expectError(
      await as("creator").post(`${reviewsPath()}/rev_${"0".repeat(24)}/reply`, { text: "Hi" }),
      404,
      "review_not_found",
    );
  });
});

describe("what a review may hold", () => {
  it.each([
    ["a rating of 0", { rating: 0, text: "x" }],
    ["a rating of 6", { rating: 6, text: "x" }],
    ["a fractional rating", { rating: 4.5, text: "x" }],
    ["a rating as text", { rating: "5", text: "x" }],
    ["no text", { rating: 5 }],
    ["blank text", { rating: 5, text: "  " }],
    ["2,001 characters", { rating: 5, text: "é".repeat(2_001) }],
    ["a NUL", { rating: 5, text: "bad\u0000text" }],
    ["a control character", { rating: 5, text: "bell\u0007" }],
    ["an unknown field", { rating: 5, text: "x", stars: 5 }],
  ])("refuses %s (400 invalid_request)", async (_, body) => {
    expectError(await review("erin", body), 400, "invalid_request");
  });

  it("takes 2,000 characters, and refuses ids that are not listings", async () => {
    expect((await review("erin", { rating: 3, text: "é".repeat(2_000) })).status).toBe(200);
    expectError(
      await as("erin").post("/v1/listings/nope/reviews", { rating: 3, text: "x" }),
      400,
      "invalid_listing_id",
    );
    expectError(
      await as("erin").post(`/v1/listings/lst_${"0".repeat(64)}/reviews`, { rating: 3, text: "x" }),
      404,
      "listing_not_found",
    );
  });
});

describe("how often a wallet writes", () => {
  it(
    "refuses the sixth review, edit or reply in a minute with 429",
    async () => {
      const statuses = await inOneWindow(
        async () => {
          const seen: number[] = [];
          for (let n = 1; n <= 6; n++) {
            seen.push((await review("frank", { rating: 4, text: `edit ${n}` })).status);
          }
          return seen;
        },
        { sameBudget: true },
      );
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    },
    WAITS_FOR_A_WINDOW_MS,
  );
});

describe("a review right after the first run", () => {
  it("is taken while the indexer has not yet seen the purchase: the completed run proves it", async () => {
    const listing = { id: listingId, onChainId: onChainId as `0x${string}` };
    stack().ponder.kill("SIGSTOP");
    try {
      await mineBlock(stack(), [oneTimePurchase(grace, listing, PRICE)]);
      // As the execute path leaves it: admitted once the chain showed the credential, completed.
      await insertCompletedRun(stack().db, { wallet: grace.address, listing: onChainId });
      expect((await review("grace", { rating: 4, text: "Fast" })).status).toBe(200);
    } finally {
      stack().ponder.kill("SIGCONT");
    }
  });
});
