// A creator's own listings from the indexer's projections, once and as Server-Sent Events: a purchase
// by another wallet reaches an open stream as a new `listings` event without anyone asking again.
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTINGS_STREAMS_PER_WALLET } from "../../api/limits.ts";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import type { CreatorListing } from "../../sdk/src/index.ts";
import { ServiceClient } from "../../sdk/src/index.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { agentDrafts, publishListings } from "../support/listingFixtures.ts";
import { createTestApp } from "../support/testApp.ts";
import { useStack } from "../support/useStack.ts";

const PRICE = parseEther("0.01");
/** A purchase mined reaches an open stream within this long: the indexer's block, then the notice. */
const FOLLOWED_WITHIN_MS = 10_000;

const stack = useStack({ api: 1 });
const creator = devAccount(3);
const buyer = devAccount(4);
const draft = agentDrafts(creator, {
  seedPrefix: "creator-listings",
  category: "research",
  described: "followed by its creator",
});
const sold = draft("sold-once", ONE_TIME, PRICE);
const unsold = draft("never-sold", ONE_TIME, PRICE * 2n);
let ids: { sold: string; unsold: string; soldOnChain: `0x${string}` };
let creatorToken: string;

beforeAll(async () => {
  const { listings } = await publishListings(stack(), [sold, unsold]);
  const [soldIds, unsoldIds] = listings;
  if (!soldIds || !unsoldIds) throw new Error("both listings are published");
  ids = { sold: soldIds.id, unsold: unsoldIds.id, soldOnChain: soldIds.onChainId };
  creatorToken = await signIn(stack().api.url, creator);
});

const events = (token: string) =>
  fetch(`${stack().api.url}/v1/creators/me/listings/events`, {
    headers: { authorization: `Bearer ${token}` },
  });

describe("GET /v1/creators/me/listings", () => {
  it("answers every listing of the caller's wallet with its books, and another wallet none of them", async () => {
    const answer = await http(stack().api.url, { bearer: creatorToken }).get(
      "/v1/creators/me/listings",
    );
    expect(answer.status).toBe(200);
    const byId = new Map(answer.body.listings.map((row: { id: string }) => [row.id, row]));
    expect(byId.get(ids.unsold)).toEqual({
      id: ids.unsold,
      on_chain_id: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      title: "Never Sold",
      status: "active",
      rental_model: "one_time",
      price_wei: (PRICE * 2n).toString(),
      purchases: 0,
      escrow_wei: "0",
      earned_wei: "0",
      withdrawn_wei: "0",
      run_count: 0,
      success_rate: 0,
    });
    expect(byId.has(ids.sold)).toBe(true);
    // The SDK reads the same, wei as bigint.
    const client = new ServiceClient({ baseUrl: stack().api.url, token: creatorToken });
    const read = await client.creators.myListings();
    expect(read.find((listing) => listing.id === ids.unsold)?.price_wei).toBe(PRICE * 2n);

    const stranger = http(stack().api.url, {
      bearer: await signIn(stack().api.url, devAccount(5)),
    });
    expect((await stranger.get("/v1/creators/me/listings")).body).toEqual({ listings: [] });
    expectError(await http(stack().api.url).get("/v1/creators/me/listings"), 401, "unauthorized");
  });
});

describe("GET /v1/creators/me/listings/events", () => {
  const watching = new AbortController();
  afterAll(() => watching.abort());

  it("sends the listings at once, then again when another wallet's purchase is indexed", async () => {
    const client = new ServiceClient({ baseUrl: stack().api.url, token: creatorToken });
    const updates = client.creators.watchMyListings({ signal: watching.signal });
    const find = (listings: CreatorListing[] | undefined, id: string) =>
      listings?.find((listing) => listing.id === id);

    const first = await updates.next();
    expect(find(first.value || undefined, ids.sold)).toMatchObject({
      purchases: 0,
      escrow_wei: 0n,
    });

    await stack().marketplace.mined(
      stack().marketplace.as(buyer).write.purchaseOneTime([ids.soldOnChain], { value: PRICE }),
    );
    const started = Date.now();
    const next = await updates.next();
    expect(Date.now() - started).toBeLessThan(FOLLOWED_WITHIN_MS);
    const after = find(next.value || undefined, ids.sold);
    expect(after?.purchases).toBe(1);
    expect(after?.escrow_wei).toBeGreaterThan(0n);
    expect(after?.earned_wei).toBe(after?.escrow_wei);
    // The listing nobody bought is as it was.
    expect(find(next.value || undefined, ids.unsold)).toMatchObject({
      purchases: 0,
    });

    watching.abort();
    expect(await updates.next()).toEqual({ done: true, value: undefined });
  }, 30_000);

  it(`holds at most ${LISTINGS_STREAMS_PER_WALLET} open per wallet; one closed makes room`, async () => {
    const open = await Promise.all(
      Array.from({ length: LISTINGS_STREAMS_PER_WALLET }, () => events(creatorToken)),
    );
    for (const response of open) {
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    }
    const refused = await events(creatorToken);
    expectError({ status: refused.status, body: await refused.json() }, 429, "rate_limit_exceeded");
    // Another wallet is not counted against this one.
    const other = await events(await signIn(stack().api.url, devAccount(6)));
    expect(other.status).toBe(200);
    await other.body?.cancel();

    await open[0]?.body?.cancel();
    await expect
      .poll(async () => {
        const again = await events(creatorToken);
        await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
    await Promise.all(open.slice(1).map((response) => response.body?.cancel()));
  });
  it("keeps an idle stream open with comment lines, and ends it when the process begins to stop", async () => {
    const local = createTestApp(stack(), { streamHeartbeatMs: 100 });
    try {
      await local.listening();
      const response = await local.app.request("/v1/creators/me/listings/events", {
        headers: { authorization: `Bearer ${await local.tokenFor(creator)}` },
      });
      const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes(": heartbeat")) text += (await reader?.read())?.value ?? "";
      expect(text).toMatch(/^event: listings\ndata: \{"listings":\[/);

      local.beginStopping();
      for (;;) {
        const next = await reader?.read();
        if (!next || next.done) break;
      }
    } finally {
      await local.close();
    }
  });
});
