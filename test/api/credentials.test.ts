// GET /v1/credentials and GET /v1/credentials/:listing_id over HTTP against the whole stack: the
// list with its status filter and paging, the spec's verify variants, and every error either returns.
//
// Time: the list derives expiry from the API's wall clock, verify asks the chain. To have a
// subscription expired in both, the renters buy while the chain's clock is set 40 days back
// (`evm_setTime`), so a 30-day subscription ended 10 days ago and a 90-day one runs 50 more days;
// then the chain's clock is set back to the wall clock, and both views agree.
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { type Hex, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  seedOf,
  THIRTY_DAYS,
} from "../../devStack/marketplace.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { type PublicManifest, saveAgent } from "../../lib/agents/saveAgent.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { JWT_SECRET, startTestStack, type TestStack } from "../harness/stack.ts";
import { createApiKey, signIn } from "../support/http.ts";

const authority = devAccount(0);
const creator = devAccount(2);
const renter = devAccount(3); // holds one credential in every state
const neighbour = devAccount(4); // holds one credential of their own
const returning = devAccount(5); // renews and tops up
const newcomer = devAccount(6); // holds nothing

const DAY = 24 * 60 * 60;
const PRICE = parseEther("0.01");
const TASK_PRICE = parseEther("0.001");

let stack: TestStack;
let keys: Record<"list" | "verify" | "errors" | "neighbour" | "returning" | "newcomer", string>;

// ─── Over HTTP ───────────────────────────────────────────────────────────────

const requestIds: string[] = [];

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked by the assertions
type Reply = { status: number; headers: Headers; body: any };

/**
 * A GET as a client makes it; every response, success or error, must carry a request id and the
 * rate limit headers.
 */
async function get(path: string, bearer?: string): Promise<Reply> {
  const response = await fetch(`${stack.api.url}${path}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
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
function expectError(reply: Reply, status: number, code: string) {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status,
    body: { error: { code, message: expect.any(String), status } },
  });
}

// ─── The chain ───────────────────────────────────────────────────────────────

/** Waits for a transaction and for the indexer to have it; returns its block time (seconds). */
async function send(hash: Promise<Hex>): Promise<number> {
  const receipt = await stack.marketplace.mined(hash);
  const block = await stack.marketplace.publicClient.getBlock({ blockNumber: receipt.blockNumber });
  await stack.ponder.waitForBlock(receipt.blockNumber);
  return Number(block.timestamp);
}

async function mineAt(seconds: number) {
  await rpcRequest(stack.anvil.rpcUrl, "evm_setTime", [seconds]);
  await rpcRequest(stack.anvil.rpcUrl, "evm_mine");
  const head = await stack.marketplace.publicClient.getBlockNumber({ cacheTime: 0 });
  await stack.ponder.waitForBlock(head);
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

type Listing = { onChainId: Hex; id: string; title: string };

let nextSeed = 0;
/** A listing by `creator`; `registered: false` leaves its agent unregistered (unpublished). */
async function publish(
  title: string,
  model: number,
  price: bigint,
  { registered = true } = {},
): Promise<Listing> {
  const seed = seedOf(`credentials-${nextSeed++}`);
  const market = stack.marketplace.as(creator);
  const onChainId = await market.read.deriveListingId([creator.address, seed]);
  const manifest: PublicManifest = {
    name: title.toLowerCase().replaceAll(" ", "-"),
    title,
    category: "research",
    description: `${title}, for the credential tests`,
    sample_output: ["ok"],
  };
  if (registered) {
    await saveAgent(stack.db, {
      agentId: `${manifest.name}-${onChainId.slice(2, 10)}`,
      onChainListingId: onChainId,
      creator: creator.address,
      publicManifest: manifest,
      metadataUri: METADATA_URI,
    });
  }
  await send(market.write.createListing([seed, model, price, METADATA_URI]));
  return { onChainId, id: toApiListingId(onChainId), title };
}

// ─── Credentials in every state ──────────────────────────────────────────────

const listings = {} as Record<
  | "oneTime"
  | "expiredSubscription"
  | "subscription"
  | "emptyTask"
  | "revoked"
  | "closed"
  | "paused"
  | "unbought"
  | "unpublished",
  Listing
>;

/** A credential list item as the spec names its fields. */
type Item = {
  listing_id: string;
  listing_title: string;
  rental_model: string;
  status: string;
  purchased_at: string;
  expires_at: string | null;
};

/** The renter's credentials as the test bought them. */
const renterItems: Item[] = [];
let expiredSubscriptionEnd: number;
let runId = 1n;

function item(
  listing: Listing,
  rentalModel: string,
  status: string,
  purchasedAt: number,
  expiresAt: number | null = null,
): Item {
  return {
    listing_id: listing.id,
    listing_title: listing.title,
    rental_model: rentalModel,
    status,
    purchased_at: iso(purchasedAt),
    expires_at: expiresAt === null ? null : iso(expiresAt),
  };
}

/** As the list orders them: most recently purchased first, then by listing id. */
function newestFirst(items: Item[]) {
  return [...items].sort(
    (a, b) =>
      b.purchased_at.localeCompare(a.purchased_at) || a.listing_id.localeCompare(b.listing_id),
  );
}

beforeAll(async () => {
  stack = await startTestStack();
  listings.oneTime = await publish("Patent Search", ONE_TIME, PRICE);
  listings.expiredSubscription = await publish("Market Digest", SUBSCRIPTION, PRICE);
  listings.subscription = await publish("Case Law Watch", SUBSCRIPTION, PRICE);
  listings.emptyTask = await publish("Citation Finder", PER_QUERY, TASK_PRICE);
  listings.revoked = await publish("Data Room Review", ONE_TIME, PRICE);
  listings.closed = await publish("Sunset Agent", ONE_TIME, PRICE);
  listings.paused = await publish("Holiday Agent", ONE_TIME, PRICE);
  listings.unbought = await publish("Nobody Bought Me", ONE_TIME, PRICE);
  listings.unpublished = await publish("Unregistered", ONE_TIME, PRICE, { registered: false });

  const [list, verify, errors, neighbourKey, returningKey, newcomerKey] = await Promise.all([
    createApiKey(stack.api.url, renter, "list"),
    createApiKey(stack.api.url, renter, "verify"),
    createApiKey(stack.api.url, renter, "errors"),
    createApiKey(stack.api.url, neighbour),
    createApiKey(stack.api.url, returning),
    createApiKey(stack.api.url, newcomer),
  ]);
  keys = {
    list: list.key,
    verify: verify.key,
    errors: errors.key,
    neighbour: neighbourKey.key,
    returning: returningKey.key,
    newcomer: newcomerKey.key,
  };

  // Forty days ago, as the chain sees it.
  await mineAt(Math.floor(Date.now() / 1000) - 40 * DAY);
  const asRenter = stack.marketplace.as(renter).write;
  const asCreator = stack.marketplace.as(creator).write;
  const asAuthority = stack.marketplace.as(authority).write;

  let at = await send(asRenter.purchaseOneTime([listings.oneTime.onChainId], { value: PRICE }));
  renterItems.push(item(listings.oneTime, "one_time", "active", at));

  at = await send(
    asRenter.purchaseSubscription([listings.expiredSubscription.onChainId, THIRTY_DAYS], {
      value: PRICE,
    }),
  );
  expiredSubscriptionEnd = at + 30 * DAY;
  renterItems.push(
    item(listings.expiredSubscription, "subscription", "expired", at, expiredSubscriptionEnd),
  );

  at = await send(
    asRenter.purchaseSubscription([listings.subscription.onChainId, 3n * THIRTY_DAYS], {
      value: 3n * PRICE,
    }),
  );
  renterItems.push(item(listings.subscription, "subscription", "active", at, at + 90 * DAY));

  // A deposit for exactly one task, then that task: the balance is zero.
  at = await send(asRenter.purchasePerQuery([listings.emptyTask.onChainId], { value: TASK_PRICE }));
  await send(asAuthority.consumeQuery([listings.emptyTask.onChainId, renter.address, runId++]));
  renterItems.push(item(listings.emptyTask, "per_query", "low_balance", at));

  at = await send(asRenter.purchaseOneTime([listings.revoked.onChainId], { value: PRICE }));
  await send(asCreator.revokeAccess([listings.revoked.onChainId, renter.address]));
  renterItems.push(item(listings.revoked, "one_time", "revoked", at));

  // Closing needs an empty escrow: the creator withdraws the sale first.
  at = await send(asRenter.purchaseOneTime([listings.closed.onChainId], { value: PRICE }));
  const [, , escrow] = await stack.marketplace
    .as(creator)
    .read.listings([listings.closed.onChainId]);
  await send(asCreator.withdrawEarnings([listings.closed.onChainId, escrow]));
  await send(asCreator.closeListing([listings.closed.onChainId]));
  renterItems.push(item(listings.closed, "one_time", "revoked", at));

  // Pausing stops new rentals; the renter's credential is kept.
  at = await send(asRenter.purchaseOneTime([listings.paused.onChainId], { value: PRICE }));
  await send(asCreator.setListingActive([listings.paused.onChainId, false]));
  renterItems.push(item(listings.paused, "one_time", "active", at));

  // Bought, but the listing was never published: not the API's to show.
  await send(asRenter.purchaseOneTime([listings.unpublished.onChainId], { value: PRICE }));

  // Someone else's credentials never show in the renter's list.
  await send(
    stack.marketplace
      .as(neighbour)
      .write.purchaseOneTime([listings.oneTime.onChainId], { value: PRICE }),
  );

  // The returning renter's subscription lapses and their balance runs out.
  const asReturning = stack.marketplace.as(returning).write;
  await send(
    asReturning.purchaseSubscription([listings.expiredSubscription.onChainId, THIRTY_DAYS], {
      value: PRICE,
    }),
  );
  await send(asReturning.purchasePerQuery([listings.emptyTask.onChainId], { value: TASK_PRICE }));
  await send(asAuthority.consumeQuery([listings.emptyTask.onChainId, returning.address, runId++]));

  // Back to the present, where the API's clock is.
  await mineAt(Math.floor(Date.now() / 1000));
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

// ─── GET /v1/credentials ─────────────────────────────────────────────────────

describe("GET /v1/credentials", () => {
  it("lists the wallet's credentials on published listings, most recent first", async () => {
    const reply = await get("/v1/credentials", keys.list);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ credentials: newestFirst(renterItems), total: 7 });
  });

  it("shows each field of a list item as the spec names it", async () => {
    const { body } = await get("/v1/credentials?status=expired", keys.list);
    expect(body).toEqual({
      credentials: [
        {
          listing_id: `lst_${listings.expiredSubscription.onChainId.slice(2)}`,
          listing_title: "Market Digest",
          rental_model: "subscription",
          status: "expired",
          purchased_at: iso(expiredSubscriptionEnd - 30 * DAY),
          expires_at: iso(expiredSubscriptionEnd),
        },
      ],
      total: 1,
    });
    expect(Date.parse(body.credentials[0].expires_at)).toBeLessThan(Date.now());
  });

  it.each([
    ["active", ["Patent Search", "Case Law Watch", "Holiday Agent"]],
    ["expired", ["Market Digest"]],
    ["low_balance", ["Citation Finder"]],
    // Not one of the spec's filter values: revoked credentials and those of closed listings.
    ["revoked", ["Data Room Review", "Sunset Agent"]],
  ])("filters by status=%s", async (status, titles) => {
    const expected = newestFirst(renterItems.filter((one) => one.status === status));
    expect(expected.map((one) => one.listing_title).sort()).toEqual([...titles].sort());
    const reply = await get(`/v1/credentials?status=${status}`, keys.list);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ credentials: expected, total: expected.length });
  });

  it("pages with limit and offset without repeating or skipping a credential", async () => {
    const all = newestFirst(renterItems);
    const pages: Item[] = [];
    for (let offset = 0; offset < all.length + 3; offset += 3) {
      const reply = await get(`/v1/credentials?limit=3&offset=${offset}`, keys.list);
      expect(reply.body.total).toBe(all.length);
      expect(reply.body.credentials).toEqual(all.slice(offset, offset + 3));
      pages.push(...reply.body.credentials);
    }
    expect(pages).toEqual(all);

    const active = all.filter((one) => one.status === "active");
    for (const [offset, credential] of active.entries()) {
      const reply = await get(`/v1/credentials?status=active&limit=1&offset=${offset}`, keys.list);
      expect(reply.body).toEqual({ credentials: [credential], total: active.length });
    }
  });

  it("shows each wallet only its own credentials", async () => {
    const neighbours = await get("/v1/credentials", keys.neighbour);
    expect(neighbours.body).toEqual({
      credentials: [expect.objectContaining({ listing_id: listings.oneTime.id, status: "active" })],
      total: 1,
    });
    expect(await get("/v1/credentials", keys.newcomer)).toMatchObject({
      status: 200,
      body: { credentials: [], total: 0 },
    });
  });

  it.each([
    ["status", "status=not_found"],
    ["status", "status=valid"],
    ["status", "status=ACTIVE"],
    ["limit", "limit=0"],
    ["limit", "limit=101"],
    ["limit", "limit=1.5"],
    ["offset", "offset=-1"],
    ["offset", "offset=next"],
  ])("answers 400 invalid_request naming %s for ?%s", async (param, query) => {
    const reply = await get(`/v1/credentials?${query}`, keys.errors);
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error.message).toContain(param);
  });
});

// ─── GET /v1/credentials/:listing_id ─────────────────────────────────────────

describe("GET /v1/credentials/:listing_id", () => {
  const valid = (listing: Listing, rentalModel: string) => ({
    listing_id: listing.id,
    rental_model: rentalModel,
    status: "active",
    valid: true,
    on_chain_listing_id: listing.onChainId,
    on_chain_verified: true,
  });

  it("reports a valid credential (one-time, subscription, on a paused listing)", async () => {
    const reply = await get(`/v1/credentials/${listings.oneTime.id}`, keys.verify);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      listing_id: listings.oneTime.id,
      rental_model: "one_time",
      status: "active",
      valid: true,
      on_chain_listing_id: listings.oneTime.onChainId,
      on_chain_verified: true,
    });
    expect(reply.body.on_chain_listing_id).toMatch(/^0x[0-9a-f]{64}$/);

    const subscription = await get(`/v1/credentials/${listings.subscription.id}`, keys.verify);
    expect(subscription.body).toEqual(valid(listings.subscription, "subscription"));
    const paused = await get(`/v1/credentials/${listings.paused.id}`, keys.verify);
    expect(paused.body).toEqual(valid(listings.paused, "one_time"));
  });

  it("reports an expired subscription with expired_at", async () => {
    const reply = await get(`/v1/credentials/${listings.expiredSubscription.id}`, keys.verify);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      listing_id: listings.expiredSubscription.id,
      rental_model: "subscription",
      status: "expired",
      valid: false,
      expired_at: iso(expiredSubscriptionEnd),
      on_chain_listing_id: listings.expiredSubscription.onChainId,
      on_chain_verified: true,
    });
  });

  it("reports no credential as not_found, not verified on-chain", async () => {
    const none = (listing: Listing) => ({
      listing_id: listing.id,
      valid: false,
      status: "not_found",
      on_chain_verified: false,
    });
    const unbought = await get(`/v1/credentials/${listings.unbought.id}`, keys.verify);
    expect(unbought.status).toBe(200);
    expect(unbought.body).toEqual(none(listings.unbought));
    // The renter's credential is theirs alone.
    const other = await get(`/v1/credentials/${listings.subscription.id}`, keys.newcomer);
    expect(other.body).toEqual(none(listings.subscription));
  });

  it("reports a per-task credential with a zero balance as low_balance", async () => {
    const reply = await get(`/v1/credentials/${listings.emptyTask.id}`, keys.verify);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      listing_id: listings.emptyTask.id,
      rental_model: "per_query",
      status: "low_balance",
      valid: false,
      on_chain_listing_id: listings.emptyTask.onChainId,
      on_chain_verified: true,
    });
  });

  it("reports a revoked credential, and one on a closed listing, as revoked", async () => {
    for (const listing of [listings.revoked, listings.closed]) {
      const reply = await get(`/v1/credentials/${listing.id}`, keys.verify);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        listing_id: listing.id,
        rental_model: "one_time",
        status: "revoked",
        valid: false,
        on_chain_listing_id: listing.onChainId,
        on_chain_verified: true,
      });
    }
  });

  it("follows a renewal and a top-up back to active, in both endpoints", async () => {
    const before = await get("/v1/credentials", keys.returning);
    expect(before.body.credentials.map((one: Item) => one.status).sort()).toEqual([
      "expired",
      "low_balance",
    ]);

    const asReturning = stack.marketplace.as(returning).write;
    const renewedAt = await send(
      asReturning.renewSubscription([listings.expiredSubscription.onChainId, THIRTY_DAYS], {
        value: PRICE,
      }),
    );
    await send(asReturning.topUpBalance([listings.emptyTask.onChainId], { value: TASK_PRICE }));

    for (const [listing, rentalModel] of [
      [listings.expiredSubscription, "subscription"],
      [listings.emptyTask, "per_query"],
    ] as const) {
      const reply = await get(`/v1/credentials/${listing.id}`, keys.returning);
      expect(reply.body).toEqual(valid(listing, rentalModel));
    }
    const after = await get("/v1/credentials?status=active", keys.returning);
    expect(after.body.total).toBe(2);
    // A lapsed subscription is renewed from the time of renewal.
    expect(
      after.body.credentials.find((one: Item) => one.rental_model === "subscription").expires_at,
    ).toBe(iso(renewedAt + 30 * DAY));
  });

  it.each([
    ["no prefix", (id: string) => id.slice(4)],
    ["the on-chain 0x form", (id: string) => `0x${id.slice(4)}`],
    ["upper-case hex", (id: string) => `lst_${id.slice(4).toUpperCase()}`],
    ["63 hex digits", (id: string) => id.slice(0, -1)],
    ["65 hex digits", (id: string) => `${id}0`],
    ["not hex", () => `lst_${"z".repeat(64)}`],
    ["an agent name", () => "patent-search"],
  ])("answers 400 invalid_listing_id for a malformed id (%s)", async (_, malformed) => {
    const reply = await get(`/v1/credentials/${malformed(listings.oneTime.id)}`, keys.errors);
    expectError(reply, 400, "invalid_listing_id");
  });

  it("answers 404 listing_not_found for an unknown or unpublished listing", async () => {
    const unknown = `lst_${randomBytes(32).toString("hex")}`;
    expectError(await get(`/v1/credentials/${unknown}`, keys.errors), 404, "listing_not_found");
    // The renter holds a credential for it on-chain, but it was never published.
    expectError(
      await get(`/v1/credentials/${listings.unpublished.id}`, keys.errors),
      404,
      "listing_not_found",
    );
    const list = await get("/v1/credentials", keys.errors);
    expect(list.body.credentials.map((one: Item) => one.listing_id)).not.toContain(
      listings.unpublished.id,
    );
  });
});

// ─── Both endpoints ──────────────────────────────────────────────────────────

describe("authentication and limits", () => {
  const paths = () => ["/v1/credentials", `/v1/credentials/${listings.oneTime.id}`];

  it("answers 401 unauthorized without a usable bearer token", async () => {
    const wrongSecret = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(renter.address.toLowerCase())
      .setIssuer("intl")
      .setAudience("intl-api")
      .setExpirationTime("1h")
      .sign(randomBytes(32));
    for (const path of paths()) {
      expectError(await get(path), 401, "unauthorized");
      expectError(await get(path, "not-a-token"), 401, "unauthorized");
      expectError(await get(path, wrongSecret), 401, "unauthorized");
    }
  });

  it("answers 401 invalid_api_key to an unknown or revoked key", async () => {
    const { id, key } = await createApiKey(stack.api.url, renter, "to revoke");
    const token = await signIn(stack.api.url, renter);
    const revoked = await fetch(`${stack.api.url}/v1/api-keys/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(200);
    for (const path of paths()) {
      expectError(await get(path, key), 401, "invalid_api_key");
      expectError(await get(path, `intl_test_${"B".repeat(43)}`), 401, "invalid_api_key");
    }
  });

  it("answers 401 jwt_expired to an expired wallet token, and 200 to a fresh one", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(renter.address.toLowerCase())
      .setIssuer("intl")
      .setAudience("intl-api")
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(new TextEncoder().encode(JWT_SECRET));
    const fresh = await signIn(stack.api.url, renter);
    for (const path of paths()) {
      expectError(await get(path, expired), 401, "jwt_expired");
      expect((await get(path, fresh)).status).toBe(200);
    }
    // The same wallet, the same credentials, whichever way it authenticates.
    expect((await get("/v1/credentials", fresh)).body).toEqual(
      (await get("/v1/credentials", keys.list)).body,
    );
  });

  it("answers 429 rate_limit_exceeded with Retry-After past 100 requests a minute", async () => {
    const { key } = await createApiKey(stack.api.url, renter, "burst");
    // 250: even if a minute's window turns over mid-burst, one window sees more than 100.
    const burst = await Promise.all(
      Array.from({ length: 250 }, (_, i) => get(paths()[i % 2] as string, key)),
    );
    expect(burst.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true);
    const limited = burst.filter((reply) => reply.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const reply of limited) {
      expectError(reply, 429, "rate_limit_exceeded");
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(reply.headers.get("x-ratelimit-limit")).toBe("100");
    }
  });
});

describe("as time passes on-chain", () => {
  it("reports a subscription expired once the chain passes its end", async () => {
    const listing = await publish("Quarterly Brief", SUBSCRIPTION, PRICE);
    const boughtAt = await send(
      stack.marketplace
        .as(newcomer)
        .write.purchaseSubscription([listing.onChainId, THIRTY_DAYS], { value: PRICE }),
    );
    expect((await get(`/v1/credentials/${listing.id}`, keys.newcomer)).body.status).toBe("active");

    await rpcRequest(stack.anvil.rpcUrl, "evm_increaseTime", [30 * DAY + 60]);
    await rpcRequest(stack.anvil.rpcUrl, "evm_mine");
    const reply = await get(`/v1/credentials/${listing.id}`, keys.newcomer);
    expect(reply.body).toEqual({
      listing_id: listing.id,
      rental_model: "subscription",
      status: "expired",
      valid: false,
      expired_at: iso(boughtAt + 30 * DAY),
      on_chain_listing_id: listing.onChainId,
      on_chain_verified: true,
    });
  });

  it("answers 503 service_unavailable when the chain cannot be read (last: stops anvil)", async () => {
    await stack.anvil.stop();
    expectError(
      await get(`/v1/credentials/${listings.oneTime.id}`, keys.errors),
      503,
      "service_unavailable",
    );
    // The list comes from the indexed projections and still answers.
    expect((await get("/v1/credentials", keys.errors)).status).toBe(200);
  });
});

describe("every response", () => {
  it("carried its own X-Request-Id", () => {
    expect(requestIds.length).toBeGreaterThan(100);
    expect(new Set(requestIds).size).toBe(requestIds.length);
  });
});
