// GET /v1/credentials and GET /v1/credentials/:listing_id over HTTP against the whole stack: the
// list with its status filter and paging, the spec's verify variants, that both read a status at the
// chain's latest block alike, and every error either returns.
//
// Time: both endpoints read statuses at the chain's time. The renters buy while the chain's clock is
// set 40 days back (`evm_setTime`), so a 30-day subscription ended 10 days ago and a 90-day one runs
// 50 more days; then the chain's clock is set back to the present.
import { randomBytes } from "node:crypto";
import { parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { CHAIN_HEAD_ALIVE_MS } from "../../api/limits.ts";
import {
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  THIRTY_DAYS,
} from "../../devStack/marketplace.ts";
import { shareOf } from "../../devStack/money.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
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
} from "../support/listingFixtures.ts";
import { mineBlock, mineIndexedBlock, transaction } from "../support/mineBlock.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const authority = devAccount(0);
const creator = devAccount(2);
const renter = devAccount(3); // holds one credential in every state
const neighbour = devAccount(4); // holds one credential of their own
const returning = devAccount(5); // renews and tops up
const newcomer = devAccount(6); // holds nothing
const subscriber = devAccount(7); // subscribes as the chain nears the end of a subscription
const prepaid = devAccount(9); // holds a per-task balance whose listing's price is raised
const leaving = devAccount(10); // asks a per-task balance back

const DAY = 24n * 60n * 60n;
const PRICE = parseEther("0.01");
const TASK_PRICE = parseEther("0.001");

const stack = useStack({ api: 1 });
const api = checkedHttp(() => stack().api.url);
const KEY_OWNERS = {
  list: renter,
  verify: renter,
  errors: renter,
  neighbour,
  returning,
  newcomer,
  subscriber,
  prepaid,
  leaving,
};
let keys: Record<keyof typeof KEY_OWNERS, string>;

// ─── Listings and credentials in every state ────────────────────────────────

type Listing = ListingIds & { title: string };

function draft(title: string, model: number, price: bigint, registered = true): ListingDraft {
  const name = title.toLowerCase().replaceAll(" ", "-");
  return {
    creator,
    seed: `credentials-${name}`,
    model,
    price,
    registered,
    manifest: {
      name,
      title,
      category: "research",
      description: `${title}, for the credential tests`,
      sample_output: ["ok"],
    },
  };
}

const drafts = {
  oneTime: draft("Patent Search", ONE_TIME, PRICE),
  expiredSubscription: draft("Market Digest", SUBSCRIPTION, PRICE),
  subscription: draft("Case Law Watch", SUBSCRIPTION, PRICE),
  emptyTask: draft("Citation Finder", PER_QUERY, TASK_PRICE),
  revoked: draft("Data Room Review", ONE_TIME, PRICE),
  closed: draft("Sunset Agent", ONE_TIME, PRICE),
  paused: draft("Holiday Agent", ONE_TIME, PRICE),
  unbought: draft("Nobody Bought Me", ONE_TIME, PRICE),
  unpublished: draft("Unregistered", ONE_TIME, PRICE, false),
  ending: draft("Quarterly Brief", SUBSCRIPTION, PRICE),
  raisedTask: draft("Clause Extractor", PER_QUERY, TASK_PRICE),
  exitingTask: draft("Redline Helper", PER_QUERY, TASK_PRICE),
};
const listings = Object.fromEntries(
  Object.entries(drafts).map(([key, one]) => [
    key,
    { ...listingIdsOf(one), title: one.manifest.title as string },
  ]),
) as Record<keyof typeof drafts, Listing>;

/** A credential list item as the spec names its fields. */
type Item = {
  listing_id: string;
  listing_title: string;
  rental_model: string;
  status: string;
  purchased_at: string;
  expires_at: string | null;
};

function item(
  listing: Listing,
  rentalModel: string,
  status: string,
  purchasedAt: bigint,
  expiresAt: bigint | null = null,
): Item {
  return {
    listing_id: listing.id,
    listing_title: listing.title,
    rental_model: rentalModel,
    status,
    purchased_at: isoOf(purchasedAt),
    expires_at: expiresAt === null ? null : isoOf(expiresAt),
  };
}

/** How deep in the chain a valid credential is: credentialFinality.test.ts follows it block by block. */
const ANY_FINALITY = expect.stringMatching(/^(latest|safe|finalized)$/);

/** A verify response for a credential the chain has, with the fields `fields` adds. */
function verified(listing: Listing, fields: Record<string, unknown>) {
  return {
    listing_id: listing.id,
    ...fields,
    ...(fields.valid === true && { finality: ANY_FINALITY }),
    on_chain_listing_id: listing.onChainId,
    on_chain_verified: true,
  };
}

/** As the list orders them: most recently purchased first, then by listing id. */
function newestFirst(items: Item[]) {
  return [...items].sort(
    (a, b) =>
      b.purchased_at.localeCompare(a.purchased_at) || a.listing_id.localeCompare(b.listing_id),
  );
}

/** The renter's credentials as the test bought them. */
let renterItems: Item[];
let expiredSubscriptionEnd: bigint;

const buy = (buyer: HDAccount, listing: Listing, value: bigint) =>
  transaction(buyer, (market) => market.write.purchaseOneTime([listing.onChainId], { value }));

/** A per-task deposit of `value`, accepting a price of at most `maxPrice` per task. */
const deposit = (
  buyer: HDAccount,
  listing: Listing,
  how: "purchasePerQuery" | "topUpBalance",
  value: bigint,
  maxPrice = TASK_PRICE,
) => transaction(buyer, (market) => market.write[how]([listing.onChainId, maxPrice], { value }));

const subscribe = (buyer: HDAccount, listing: Listing, months: bigint) =>
  transaction(buyer, (market) =>
    market.write.purchaseSubscription([listing.onChainId, months * THIRTY_DAYS], {
      value: months * PRICE,
    }),
  );

const setChainTime = (seconds: bigint) =>
  rpcRequest(stack().anvil.rpcUrl, "evm_setTime", [Number(seconds)]);

beforeAll(async () => {
  [keys] = await Promise.all([
    createKeysByLabel(stack().api.url, KEY_OWNERS),
    publishListings(stack(), Object.values(drafts)),
  ]);

  // Forty days ago, as the chain sees it: the purchases, in two blocks a minute apart.
  const present = BigInt(Math.floor(Date.now() / 1000));
  await setChainTime(present - 40n * DAY);
  const first = await mineBlock(stack(), [
    buy(renter, listings.oneTime, PRICE),
    subscribe(renter, listings.expiredSubscription, 1n),
    subscribe(renter, listings.subscription, 3n),
    // Someone else's credentials never show in the renter's list.
    buy(neighbour, listings.oneTime, PRICE),
    // The returning renter's subscription lapses and their balance runs out.
    subscribe(returning, listings.expiredSubscription, 1n),
    deposit(returning, listings.emptyTask, "purchasePerQuery", TASK_PRICE),
  ]);
  const second = await mineBlock(
    stack(),
    [
      // A deposit for exactly one task, spent below: the balance is zero.
      deposit(renter, listings.emptyTask, "purchasePerQuery", TASK_PRICE),
      buy(renter, listings.revoked, PRICE),
      buy(renter, listings.closed, PRICE),
      buy(renter, listings.paused, PRICE),
      // Bought, but the listing was never published: not the API's to show.
      buy(renter, listings.unpublished, PRICE),
    ],
    { timestamp: first.timestamp + 60n },
  );

  // Back to the present: tasks spent, a credential revoked, a listing closed (which needs an empty
  // escrow: the creator withdraws the sale first) and one paused (the credential is kept).
  await setChainTime(present);
  await mineIndexedBlock(stack(), [
    transaction(authority, (market) =>
      market.write.consumeQuery([
        listings.emptyTask.onChainId,
        renter.address,
        1n,
        TASK_PRICE,
        true,
      ]),
    ),
    transaction(authority, (market) =>
      market.write.consumeQuery([
        listings.emptyTask.onChainId,
        returning.address,
        2n,
        TASK_PRICE,
        true,
      ]),
    ),
    transaction(creator, (market) =>
      market.write.revokeAccess([listings.revoked.onChainId, renter.address]),
    ),
    transaction(creator, (market) =>
      market.write.withdrawEarnings([listings.closed.onChainId, shareOf(PRICE)]),
    ),
    transaction(creator, (market) => market.write.closeListing([listings.closed.onChainId])),
    transaction(creator, (market) =>
      market.write.setListingActive([listings.paused.onChainId, false]),
    ),
  ]);

  expiredSubscriptionEnd = first.timestamp + THIRTY_DAYS;
  renterItems = [
    item(listings.oneTime, "one_time", "active", first.timestamp),
    item(
      listings.expiredSubscription,
      "subscription",
      "expired",
      first.timestamp,
      expiredSubscriptionEnd,
    ),
    item(
      listings.subscription,
      "subscription",
      "active",
      first.timestamp,
      first.timestamp + 3n * THIRTY_DAYS,
    ),
    item(listings.emptyTask, "per_query", "low_balance", second.timestamp),
    item(listings.revoked, "one_time", "revoked", second.timestamp),
    item(listings.closed, "one_time", "revoked", second.timestamp),
    item(listings.paused, "one_time", "active", second.timestamp),
  ];
}, 240_000);

// ─── GET /v1/credentials ─────────────────────────────────────────────────────

describe("GET /v1/credentials", () => {
  it("lists the wallet's credentials on published listings, most recent first", async () => {
    const reply = await api.get("/v1/credentials", { bearer: keys.list });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ credentials: newestFirst(renterItems), total: 7 });
  });

  it("shows each field of a list item as the spec names it", async () => {
    const { body } = await api.get("/v1/credentials?status=expired", { bearer: keys.list });
    expect(body).toEqual({
      credentials: [
        {
          listing_id: `lst_${listings.expiredSubscription.onChainId.slice(2)}`,
          listing_title: "Market Digest",
          rental_model: "subscription",
          status: "expired",
          purchased_at: isoOf(expiredSubscriptionEnd - 30n * DAY),
          expires_at: isoOf(expiredSubscriptionEnd),
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
    const reply = await api.get(`/v1/credentials?status=${status}`, { bearer: keys.list });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ credentials: expected, total: expected.length });
  });

  it("pages with limit and offset without repeating or skipping a credential", async () => {
    const all = newestFirst(renterItems);
    const offsets = Array.from({ length: Math.ceil(all.length / 3) + 1 }, (_, n) => n * 3);
    const pages = await Promise.all(
      offsets.map((offset) =>
        api.get(`/v1/credentials?limit=3&offset=${offset}`, { bearer: keys.list }),
      ),
    );
    for (const [n, page] of pages.entries()) {
      expect(page.body.total).toBe(all.length);
      expect(page.body.credentials).toEqual(all.slice(offsets[n], (offsets[n] as number) + 3));
    }
    expect(pages.flatMap((page) => page.body.credentials)).toEqual(all);

    const active = all.filter((one) => one.status === "active");
    const singles = await Promise.all(
      active.map((_, offset) =>
        api.get(`/v1/credentials?status=active&limit=1&offset=${offset}`, { bearer: keys.list }),
      ),
    );
    expect(singles.map((single) => single.body)).toEqual(
      active.map((credential) => ({ credentials: [credential], total: active.length })),
    );
  });

  it("shows each wallet only its own credentials", async () => {
    const neighbours = await api.get("/v1/credentials", { bearer: keys.neighbour });
    expect(neighbours.body).toEqual({
      credentials: [expect.objectContaining({ listing_id: listings.oneTime.id, status: "active" })],
      total: 1,
    });
    expect(await api.get("/v1/credentials", { bearer: keys.newcomer })).toMatchObject({
      status: 200,
      body: { credentials: [], total: 0 },
    });
  });

  it("answers the same to a wallet token as to an API key of that wallet", async () => {
    const token = await signIn(stack().api.url, renter);
    expect((await api.get("/v1/credentials", { bearer: token })).body).toEqual(
      (await api.get("/v1/credentials", { bearer: keys.list })).body,
    );
  });

  itRefusesInvalidQueries(api, "/v1/credentials", () => keys.errors, [
    ["status", "status=not_found"],
    ["status", "status=valid"],
    ["status", "status=ACTIVE"],
    ...INVALID_PAGES,
  ]);
});

// ─── GET /v1/credentials/:listing_id ─────────────────────────────────────────

describe("GET /v1/credentials/:listing_id", () => {
  const verify = (listing: Listing, bearer = keys.verify) =>
    api.get(`/v1/credentials/${listing.id}`, { bearer });

  it("reports a valid one-time credential with each field as the spec names it", async () => {
    const reply = await verify(listings.oneTime);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      listing_id: listings.oneTime.id,
      rental_model: "one_time",
      status: "active",
      valid: true,
      finality: ANY_FINALITY,
      on_chain_listing_id: listings.oneTime.onChainId,
      on_chain_verified: true,
    });
    expect(reply.body.on_chain_listing_id).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it.each([
    ["a subscription as active", "subscription", "subscription", "active", true],
    ["a credential on a paused listing as active", "paused", "one_time", "active", true],
    [
      "a per-task credential with a zero balance as low_balance",
      "emptyTask",
      "per_query",
      "low_balance",
      false,
    ],
    ["a revoked credential as revoked", "revoked", "one_time", "revoked", false],
    ["a credential on a closed listing as revoked", "closed", "one_time", "revoked", false],
  ] as const)("reports %s", async (_, name, rentalModel, status, valid) => {
    const reply = await verify(listings[name]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(
      verified(listings[name], { rental_model: rentalModel, status, valid }),
    );
  });

  it("reports an expired subscription with expired_at", async () => {
    const reply = await verify(listings.expiredSubscription);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(
      verified(listings.expiredSubscription, {
        rental_model: "subscription",
        status: "expired",
        valid: false,
        expired_at: isoOf(expiredSubscriptionEnd),
      }),
    );
  });

  it("reports no credential as not_found, not verified on-chain", async () => {
    const none = (listing: Listing) => ({
      listing_id: listing.id,
      valid: false,
      status: "not_found",
      on_chain_verified: false,
    });
    const unbought = await verify(listings.unbought);
    expect(unbought.status).toBe(200);
    expect(unbought.body).toEqual(none(listings.unbought));
    // The renter's credential is theirs alone.
    const other = await verify(listings.subscription, keys.newcomer);
    expect(other.body).toEqual(none(listings.subscription));
  });

  it("follows a renewal and a top-up back to active, in both endpoints", async () => {
    const before = await api.get("/v1/credentials", { bearer: keys.returning });
    expect(before.body.credentials.map((one: Item) => one.status).sort()).toEqual([
      "expired",
      "low_balance",
    ]);

    const renewed = await mineIndexedBlock(stack(), [
      transaction(returning, (market) =>
        market.write.renewSubscription([listings.expiredSubscription.onChainId, THIRTY_DAYS], {
          value: PRICE,
        }),
      ),
      deposit(returning, listings.emptyTask, "topUpBalance", TASK_PRICE),
    ]);

    for (const [listing, rentalModel] of [
      [listings.expiredSubscription, "subscription"],
      [listings.emptyTask, "per_query"],
    ] as const) {
      expect((await verify(listing, keys.returning)).body).toEqual(
        verified(listing, { rental_model: rentalModel, status: "active", valid: true }),
      );
    }
    const after = await api.get("/v1/credentials?status=active", { bearer: keys.returning });
    expect(after.body.total).toBe(2);
    // A lapsed subscription is renewed from the time of renewal.
    expect(
      after.body.credentials.find((one: Item) => one.rental_model === "subscription").expires_at,
    ).toBe(isoOf(renewed.timestamp + THIRTY_DAYS));
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
    const path = `/v1/credentials/${malformed(listings.oneTime.id)}`;
    expectError(await api.get(path, { bearer: keys.errors }), 400, "invalid_listing_id");
  });

  it("answers 404 listing_not_found for an unknown or unpublished listing", async () => {
    const unknown = `/v1/credentials/lst_${randomBytes(32).toString("hex")}`;
    expectError(await api.get(unknown, { bearer: keys.errors }), 404, "listing_not_found");
    // The renter holds a credential for it on-chain, but it was never published.
    expectError(await verify(listings.unpublished, keys.errors), 404, "listing_not_found");
    const list = await api.get("/v1/credentials", { bearer: keys.errors });
    expect(list.body.credentials.map((one: Item) => one.listing_id)).not.toContain(
      listings.unpublished.id,
    );
  });
});

// ─── Both endpoints ──────────────────────────────────────────────────────────

describeAuthenticatedEndpoints("GET /v1/credentials and /v1/credentials/:listing_id", {
  api,
  apiUrl: () => stack().api.url,
  paths: () => ["/v1/credentials", `/v1/credentials/${listings.oneTime.id}`],
  wallet: renter,
  rateLimitPerMinute: 100,
});

describe("finding: per-task price lock", () => {
  const listing = listings.raisedTask;
  const statuses = async () => ({
    list: (await api.get("/v1/credentials", { bearer: keys.prepaid })).body.credentials.map(
      (one: Item) => one.status,
    ),
    verify: (await api.get(`/v1/credentials/${listing.id}`, { bearer: keys.prepaid })).body.status,
  });
  const setPrice = (price: bigint) =>
    transaction(creator, (market) =>
      market.write.updateListing([listing.onChainId, price, METADATA_URI]),
    );
  /** A run admitted at `admittedAt` (the next debit's price then) is debited. */
  const debit = (runId: bigint, admittedAt: bigint) =>
    transaction(authority, (market) =>
      market.write.consumeQuery([listing.onChainId, prepaid.address, runId, admittedAt, true]),
    );
  const balance = async () =>
    (
      await stack()
        .marketplace.as(prepaid)
        .read.perQueryBalances([listing.onChainId, prepaid.address])
    )[0];

  it("debits the price the renter agreed to after a raise to the whole balance, and both endpoints say what the next debit can pay", async () => {
    // The attack: the creator raises the price to the renter's whole balance, then a run is debited.
    await mineIndexedBlock(stack(), [
      deposit(prepaid, listing, "purchasePerQuery", 2n * TASK_PRICE),
      setPrice(2n * TASK_PRICE),
      debit(101n, TASK_PRICE),
    ]);
    expect(await balance()).toBe(TASK_PRICE);
    // The next run costs the agreed price, which the balance covers; by the listing's price it would not.
    expect(await statuses()).toEqual({ list: ["active"], verify: "active" });

    // A top-up agrees to the new price: one more run at it leaves too little for the next.
    await mineIndexedBlock(stack(), [
      deposit(prepaid, listing, "topUpBalance", 2n * TASK_PRICE, 2n * TASK_PRICE),
      debit(102n, 2n * TASK_PRICE),
    ]);
    expect(await balance()).toBe(TASK_PRICE);
    expect(await statuses()).toEqual({ list: ["low_balance"], verify: "low_balance" });
  });

  it("applies a price cut to the next debit at once, in both endpoints", async () => {
    await mineIndexedBlock(stack(), [setPrice(TASK_PRICE / 2n)]);
    expect(await statuses()).toEqual({ list: ["active"], verify: "active" });
    await mineIndexedBlock(stack(), [debit(103n, TASK_PRICE / 2n)]);
    expect(await balance()).toBe(TASK_PRICE / 2n);
  });
});

describe("finding M-1: a per-task balance its renter asks back", () => {
  const listing = listings.exitingTask;
  const statuses = async () => ({
    list: (await api.get("/v1/credentials", { bearer: keys.leaving })).body.credentials.map(
      (one: Item) => one.status,
    ),
    verify: (await api.get(`/v1/credentials/${listing.id}`, { bearer: keys.leaving })).body.status,
  });

  it("is low_balance in both endpoints from the request on, and active again after a top-up", async () => {
    // anvil funds the first ten dev accounts only.
    await rpcRequest(stack().anvil.rpcUrl, "anvil_setBalance", [
      leaving.address,
      "0xde0b6b3a7640000",
    ]);
    await mineIndexedBlock(stack(), [
      deposit(leaving, listing, "purchasePerQuery", 3n * TASK_PRICE),
    ]);
    expect(await statuses()).toEqual({ list: ["active"], verify: "active" });

    // The balance still covers three runs, but it starts none while its renter takes it back.
    await mineIndexedBlock(stack(), [
      transaction(leaving, (market) => market.write.requestExit([listing.onChainId])),
    ]);
    expect(await statuses()).toEqual({ list: ["low_balance"], verify: "low_balance" });

    // A deposit ends the exit: the renter stays.
    await mineIndexedBlock(stack(), [deposit(leaving, listing, "topUpBalance", TASK_PRICE)]);
    expect(await statuses()).toEqual({ list: ["active"], verify: "active" });
  });
});

describe("as time passes on-chain", () => {
  /** Mines an empty block at `seconds`: the chain's latest time, which both endpoints read. */
  async function mineAt(seconds: bigint) {
    await rpcRequest(stack().anvil.rpcUrl, "evm_setNextBlockTimestamp", [Number(seconds)]);
    await rpcRequest(stack().anvil.rpcUrl, "evm_mine");
  }

  it("reports a subscription active a second before its end and expired a second after, in both endpoints", async () => {
    const listing = listings.ending;
    const bought = await mineIndexedBlock(stack(), [subscribe(subscriber, listing, 1n)]);
    const expiresAt = bought.timestamp + THIRTY_DAYS;
    const bothEndpoints = async () => ({
      list: (await api.get("/v1/credentials", { bearer: keys.subscriber })).body,
      verify: (await api.get(`/v1/credentials/${listing.id}`, { bearer: keys.subscriber })).body,
    });
    const active = {
      list: {
        credentials: [item(listing, "subscription", "active", bought.timestamp, expiresAt)],
        total: 1,
      },
      verify: verified(listing, { rental_model: "subscription", status: "active", valid: true }),
    };
    expect(await bothEndpoints()).toEqual(active);

    await mineAt(expiresAt - 1n);
    expect(await bothEndpoints()).toEqual(active);

    await mineAt(expiresAt + 1n);
    // The API's clock is the head the node announces, which may reach it a few milliseconds after
    // the mine returns (docs/decisions.md, "How does the API learn the chain's latest block?").
    await expect.poll(bothEndpoints, { timeout: 3_000 }).toEqual({
      list: {
        credentials: [item(listing, "subscription", "expired", bought.timestamp, expiresAt)],
        total: 1,
      },
      verify: verified(listing, {
        rental_model: "subscription",
        status: "expired",
        valid: false,
        expired_at: isoOf(expiresAt),
      }),
    });
  });

  it("answers 503 service_unavailable from both once the chain cannot be read (last: stops anvil)", async () => {
    await stack().anvil.stop();
    // The list's facts come from the projections, but its clock is the chain's. The head the node
    // announced last stands until the API hears that the node is gone, at most this long.
    const replies = await until(
      "both to answer 503",
      async () => {
        const answers = await Promise.all(
          // A wallet whose budget the rate-limit burst above left whole.
          ["/v1/credentials", `/v1/credentials/${listings.oneTime.id}`].map((path) =>
            api.get(path, { bearer: keys.newcomer }),
          ),
        );
        return answers.every((answer) => answer.status === 503) && answers;
      },
      CHAIN_HEAD_ALIVE_MS,
    );
    for (const reply of replies) expectError(reply, 503, "service_unavailable");
  });
});

describe("every response", () => {
  it("carried its own X-Request-Id", () => {
    expect(api.requestIds.length).toBeGreaterThan(100);
    expect(new Set(api.requestIds).size).toBe(api.requestIds.length);
  });
});
