// A creator's own listings from the indexer's projections, once and as Server-Sent Events: a purchase
// by another wallet reaches an open stream as a new `listings` event without anyone asking again.
import { decodeJwt } from "jose";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTINGS_STREAMS_PER_WALLET } from "../../api/limits.ts";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import type { CreatorListing } from "../../sdk/src/index.ts";
import { ServiceClient } from "../../sdk/src/index.ts";
import { createApiKey, expectError, http, signIn } from "../support/http.ts";
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

const events = (token: string, apiUrl = stack().api.url) =>
  fetch(`${apiUrl}/v1/creators/me/listings/events`, {
    headers: { authorization: `Bearer ${token}` },
  });

type SseEvent = { event: string; data: string };

/** A stream's events, one at a time, heartbeats skipped. */
function sseEvents(response: Response) {
  const body = response.body;
  if (!body) throw new Error("the answer has no body");
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const next = async (withinMs: number): Promise<SseEvent | undefined> => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      void reader.cancel();
    }, withinMs);
    try {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        if (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          if (block.startsWith(":")) continue;
          return {
            event: /^event: (.*)$/m.exec(block)?.[1] ?? "message",
            data: /^data: (.*)$/m.exec(block)?.[1] ?? "",
          };
        }
        const read = await reader.read();
        if (late) throw new Error(`the stream sent nothing more within ${withinMs} ms`);
        if (read.done) return undefined;
        buffered += read.value;
      }
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    /** The next event, or undefined once the server ended the stream; throws past `withinMs`. */
    next,
    /** The first event that is not `listings`, or undefined if the stream ends before one. */
    async firstNotListings(withinMs: number): Promise<SseEvent | undefined> {
      const deadline = Date.now() + withinMs;
      for (;;) {
        const event = await next(Math.max(1, deadline - Date.now()));
        if (event?.event !== "listings") return event;
      }
    },
    close: () => reader.cancel(),
  };
}

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

describe("finding L-5: listings streams are capped and end with their credential", () => {
  /** Issues JWTs valid this long (the least `JWT_LIFETIME_SECONDS` allows). */
  const SHORT_JWT_SECONDS = 5;
  /** A stream's first event comes within this long. */
  const FIRST_EVENT_WITHIN_MS = 10_000;
  /**
   * A revoked key's stream ends within this long of the revocation's answer: less than a key's
   * revalidation (`API_KEY_REVALIDATE_MS`), so the revocation's notice is what ends it.
   */
  const REVOCATION_ENDS_STREAM_WITHIN_MS = 3_000;
  let shortLivedApi: Api;
  beforeAll(async () => {
    shortLivedApi = await stack().addApi({ JWT_LIFETIME_SECONDS: String(SHORT_JWT_SECONDS) });
  });

  it(`holds at most ${LISTINGS_STREAMS_PER_WALLET} open per wallet: the next is refused with Retry-After, other wallets' go on`, async () => {
    const open = await Promise.all(
      Array.from({ length: LISTINGS_STREAMS_PER_WALLET }, () => events(creatorToken)),
    );
    for (const response of open) {
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    }
    const refused = await events(creatorToken);
    expectError({ status: refused.status, body: await refused.json() }, 429, "rate_limit_exceeded");
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    // Another wallet is not counted against this one: its stream opens and sends its listings.
    const other = sseEvents(await events(await signIn(stack().api.url, devAccount(6))));
    expect((await other.next(FIRST_EVENT_WITHIN_MS))?.event).toBe("listings");
    await other.close();

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

  it("ends a stream opened with a JWT at the token's expiry, with a jwt_expired error event", async () => {
    const token = await signIn(shortLivedApi.url, creator);
    const expiresAtMs = (decodeJwt(token).exp ?? 0) * 1000;
    const stream = sseEvents(await events(token, shortLivedApi.url));
    expect((await stream.next(FIRST_EVENT_WITHIN_MS))?.event).toBe("listings");

    const last = await stream.firstNotListings(SHORT_JWT_SECONDS * 1000 + 5_000);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAtMs);
    expect(last?.event).toBe("error");
    expect(JSON.parse(last?.data ?? "null")).toMatchObject({
      error: { code: "jwt_expired", status: 401 },
    });
    expect(await stream.next(FIRST_EVENT_WITHIN_MS)).toBeUndefined();
  }, 30_000);

  it("ends a stream opened with an API key once the key is revoked, with an invalid_api_key error event", async () => {
    const owner = devAccount(7);
    const { id, key } = await createApiKey(stack().api.url, owner, "listings stream");
    const stream = sseEvents(await events(key));
    expect((await stream.next(FIRST_EVENT_WITHIN_MS))?.event).toBe("listings");

    const ownerToken = await signIn(stack().api.url, owner);
    expect(
      (await http(stack().api.url, { bearer: ownerToken }).del(`/v1/api-keys/${id}`)).status,
    ).toBe(200);
    const last = await stream.firstNotListings(REVOCATION_ENDS_STREAM_WITHIN_MS);
    expect(last?.event).toBe("error");
    expect(JSON.parse(last?.data ?? "null")).toMatchObject({
      error: { code: "invalid_api_key", status: 401 },
    });
    expect(await stream.next(FIRST_EVENT_WITHIN_MS)).toBeUndefined();
  }, 30_000);
});
