// Every way `POST /v1/execute` refuses a request, against real contract state made on the stack's
// anvil: the 400s of a malformed body, the listing's 400 and 404, the 401s, each 403 with the
// contract error behind it, 503 when the chain cannot be read, and the execution rate limit with the
// creator's own limit for a listing. No refused request leaves a run behind.
//
// Time: the renters subscribe while the chain's clock is set 31 days back (`evm_setTime`), so their
// 30-day subscription ended a day ago; then the chain's clock is set back to the present.
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../devStack/findFreePort.ts";
import { ONE_TIME, PER_QUERY, SUBSCRIPTION, THIRTY_DAYS } from "../devStack/marketplace.ts";
import { shareOf } from "../devStack/money.ts";
import { rpcRequest } from "../devStack/startAnvil.ts";
import { devAccount, LOCAL_ROLES } from "../lib/chain/devAccounts.ts";
import { executionLimits, runs } from "../lib/db/appSchema.ts";
import { agentIdOf } from "../lib/ids/agentId.ts";
import { expectError, expectOnChainError, type JsonResponse } from "../test/support/http.ts";
import {
  agentDrafts,
  type ListingIds,
  listingIdsByKey,
  oneTimePurchase,
  perTaskDeposit,
  publishListings,
  registerAgent,
} from "../test/support/listingFixtures.ts";
import { mineBlock, mineIndexedBlock, transaction } from "../test/support/mineBlock.ts";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";
import { useStack } from "../test/support/useStack.ts";
import { MAX_INPUT_BYTES, MAX_TASK_BYTES } from "./limits.ts";

const authority = devAccount(LOCAL_ROLES.authority);
const operator = devAccount(LOCAL_ROLES.operator);
const creator = devAccount(2);
const renter = devAccount(3); // holds one credential in every state
const stranger = devAccount(4); // holds nothing
const limited = devAccount(5); // spends execution budgets
const otherCreator = devAccount(6);

const DAY = 24n * 60n * 60n;
const PRICE = parseEther("0.01");

const stack = useStack({ chain: true, postgres: true, ponder: true });
let app: TestApp;
let bearer: string;

const agentDraft = agentDrafts(creator, {
  seedPrefix: "execute-errors",
  category: "coding",
  described: "refused",
});
const draft = (name: string, model: number, manifest: Record<string, unknown> = {}) =>
  agentDraft(name, model, PRICE, manifest);

const drafts = {
  active: draft("reviewer", ONE_TIME, {
    input_schema: {
      type: "object",
      properties: { diff: { type: "string" }, files: { type: "array", items: { type: "string" } } },
      required: ["diff"],
    },
    timeout_seconds: 90,
  }),
  subscription: draft("digest", SUBSCRIPTION),
  spent: draft("counter", PER_QUERY),
  funded: draft("tally", PER_QUERY),
  paused: draft("holiday", ONE_TIME),
  revoked: draft("revoked", ONE_TIME),
  closed: draft("sunset", ONE_TIME),
  unlisted: draft("unlisted", ONE_TIME),
  unregistered: { ...draft("unregistered", ONE_TIME), registered: false },
};
const listings = listingIdsByKey(drafts);

const setChainTime = (seconds: bigint) =>
  rpcRequest(stack().anvil.rpcUrl, "evm_setTime", [Number(seconds)]);

const buy = (buyer: HDAccount, listing: ListingIds) => oneTimePurchase(buyer, listing, PRICE);

beforeAll(async () => {
  app = createTestApp(stack());
  bearer = await app.tokenFor(renter);
  const { unlisted, ...published } = drafts;
  await Promise.all([
    publishListings(stack(), Object.values(published)),
    // Registered, never listed on-chain: unpublished.
    registerAgent(stack().db, unlisted),
  ]);

  const present = BigInt(Math.floor(Date.now() / 1000));
  await setChainTime(present - 31n * DAY);
  await mineBlock(stack(), [
    transaction(renter, (market) =>
      market.write.purchaseSubscription([listings.subscription.onChainId, THIRTY_DAYS], {
        value: PRICE,
      }),
    ),
    perTaskDeposit(renter, listings.funded, PRICE, 2n),
    // One task's deposit, spent below: the balance is zero.
    perTaskDeposit(renter, listings.spent, PRICE, 1n),
    buy(renter, listings.active),
    buy(renter, listings.paused),
    buy(renter, listings.revoked),
    buy(renter, listings.closed),
    buy(renter, listings.unregistered),
  ]);
  await setChainTime(present);
  await mineIndexedBlock(stack(), [
    transaction(operator, (market) =>
      market.write.consumeQuery([listings.spent.onChainId, renter.address, 1n, PRICE, true]),
    ),
    transaction(creator, (market) =>
      market.write.setListingActive([listings.paused.onChainId, false]),
    ),
    transaction(creator, (market) =>
      market.write.revokeAccess([listings.revoked.onChainId, renter.address]),
    ),
    // Closing needs an empty escrow: the creator withdraws the sale first.
    transaction(creator, (market) =>
      market.write.withdrawEarnings([listings.closed.onChainId, shareOf(PRICE)]),
    ),
    transaction(creator, (market) => market.write.closeListing([listings.closed.onChainId])),
  ]);
});

const task = "Review this change";

function execute(
  body: unknown,
  options: { bearer?: string; headers?: Record<string, string> } = {},
) {
  return app.http(options.bearer ?? bearer).post("/v1/execute", body, options);
}

async function runCountOf(account: HDAccount) {
  const rows = await stack()
    .db.select({ id: runs.id })
    .from(runs)
    .where(eq(runs.wallet, account.address.toLowerCase()));
  return rows.length;
}

describe("a malformed body: 400 invalid_request naming the field", () => {
  const agent_id = () => listings.active.id;

  it.each([
    ["agent_id missing", () => ({ task }), /^agent_id: /],
    ["task missing", () => ({ agent_id: agent_id() }), /^task: /],
    ["task empty", () => ({ agent_id: agent_id(), task: "" }), /^task: /],
    ["task not a string", () => ({ agent_id: agent_id(), task: 5 }), /^task: /],
    [
      "task over 16 KB",
      () => ({ agent_id: agent_id(), task: "é".repeat(MAX_TASK_BYTES / 2 + 1) }),
      /^task: must be at most 16384 bytes/,
    ],
    ["task with U+0000", () => ({ agent_id: agent_id(), task: "a\u0000b" }), /^task: /],
    ["task with a lone surrogate", () => ({ agent_id: agent_id(), task: "a\ud800b" }), /^task: /],
    ["input an array", () => ({ agent_id: agent_id(), task, input: ["diff"] }), /^input: /],
    ["input null", () => ({ agent_id: agent_id(), task, input: null }), /^input: /],
    [
      "input over 48 KB as JSON",
      () => ({ agent_id: agent_id(), task, input: { diff: "x".repeat(MAX_INPUT_BYTES) } }),
      /^input: must be at most 49152 bytes/,
    ],
    [
      "input nested 33 levels",
      () => {
        let input: Record<string, unknown> = { diff: "+x" };
        for (let level = 0; level < 33; level++) input = { diff: "+x", inner: input };
        return { agent_id: agent_id(), task, input };
      },
      /^input: must nest at most 32 levels/,
    ],
    [
      "input with U+0000 in a key",
      () => ({ agent_id: agent_id(), task, input: { diff: "+x", "a\u0000": 1 } }),
      /^input: /,
    ],
    [
      "input and input_uri both",
      () => ({ agent_id: agent_id(), task, input: { diff: "+x" }, input_uri: "ipfs://bafy" }),
      /^input_uri: give input or input_uri, not both/,
    ],
    [
      "input_uri over plain http",
      () => ({ agent_id: agent_id(), task, input_uri: "http://example.com/a.txt" }),
      /^input_uri: /,
    ],
    [
      "input_uri with credentials",
      () => ({ agent_id: agent_id(), task, input_uri: "https://user:pw@example.com/a" }),
      /^input_uri: /,
    ],
    [
      "input_uri too long",
      () => ({ agent_id: agent_id(), task, input_uri: `https://example.com/${"a".repeat(2048)}` }),
      /^input_uri: /,
    ],
    ["priority unknown", () => ({ agent_id: agent_id(), task, priority: "urgent" }), /^priority: /],
    ["timeout 0", () => ({ agent_id: agent_id(), task, timeout_seconds: 0 }), /^timeout_seconds: /],
    [
      "timeout fractional",
      () => ({ agent_id: agent_id(), task, timeout_seconds: 1.5 }),
      /^timeout_seconds: /,
    ],
    [
      "timeout above the agent's",
      () => ({ agent_id: agent_id(), task, timeout_seconds: 91 }),
      /^timeout_seconds: must be at most 90/,
    ],
    [
      "timeout above any agent's",
      () => ({ agent_id: agent_id(), task, timeout_seconds: 301 }),
      /^timeout_seconds: /,
    ],
    ["an unknown field", () => ({ agent_id: agent_id(), task, model: "gpt" }), /model/],
    [
      "input against the agent's input_schema",
      () => ({ agent_id: agent_id(), task, input: { diff: "+x", files: ["a.ts", 7] } }),
      /^input\.files\[1\]: must be string$/,
    ],
    [
      "input missing a required property",
      () => ({ agent_id: agent_id(), task, input: { files: [] } }),
      /^input\.diff: is required$/,
    ],
  ])("%s", async (_case, body, message) => {
    const reply = await execute(body());
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error.message).toMatch(message);
  });

  it("refuses what is not a JSON object, and a body that is not JSON", async () => {
    expectError(await execute("[]"), 400, "invalid_request");
    expectError(await execute("{"), 400, "invalid_request");
    const plain = await app.app.request("/v1/execute", {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "text/plain" },
      body: JSON.stringify({ agent_id: listings.active.id, task }),
    });
    expect(plain.status).toBe(400);
  });

  it("refuses a malformed Idempotency-Key", async () => {
    for (const key of ["", "has space", "é", "k".repeat(256)]) {
      expectError(
        await execute(
          { agent_id: listings.active.id, task },
          { headers: { "idempotency-key": key } },
        ),
        400,
        "invalid_request",
      );
    }
  });

  it("left no run behind", async () => {
    expect(await runCountOf(renter)).toBe(0);
  });
});

describe("any body at all", () => {
  it("is answered with an error object, promptly: never a 500 or a hang", async () => {
    // A wallet without a credential: a body that gets past every check is refused on-chain, so no
    // run is ever admitted; its execution budget is high enough never to matter.
    const robust = createTestApp(stack(), { executionRateLimitPerMinute: 1_000_000 });
    const token = await robust.tokenFor(stranger);
    const field = fc.oneof(fc.jsonValue(), fc.string(), fc.integer());
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          agent_id: fc.oneof(fc.constant(listings.active.id), fc.string()),
          task: fc.oneof(fc.string(), field),
          input: field,
          input_uri: fc.oneof(fc.webUrl(), fc.string()),
          priority: fc.oneof(fc.constantFrom("standard", "priority"), field),
          timeout_seconds: field,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const reply = await robust.http(token).post("/v1/execute", JSON.stringify(value));
        expect([400, 403, 404]).toContain(reply.status);
        expect(reply.body).toStrictEqual({
          error: expect.objectContaining({ code: expect.any(String), status: reply.status }),
        });
      }),
      { numRuns: 150 },
    );
    // Nested far past any stack, inside `input`.
    const deep = `{"agent_id":"${listings.active.id}","task":"t","input":{"a":${"[".repeat(30_000)}${"]".repeat(30_000)}}}`;
    expectError(await robust.http(token).post("/v1/execute", deep), 400, "invalid_request");
    expect(await runCountOf(stranger)).toBe(0);
  });
});

describe("the listing", () => {
  it("is 400 invalid_listing_id when agent_id is neither a listing id nor an agent id", async () => {
    for (const agent_id of ["lst_xyz", `lst_${"A".repeat(64)}`, "Reviewer!", "reviewer"]) {
      expectError(await execute({ agent_id, task }), 400, "invalid_listing_id");
    }
  });

  it("is 404 listing_not_found when unknown, or unpublished", async () => {
    for (const agent_id of [
      `lst_${"ab".repeat(32)}`,
      "reviewer-00000000",
      // Registered but never listed on-chain; listed on-chain but never registered.
      listings.unlisted.id,
      agentIdOf("unlisted", listings.unlisted.onChainId),
      listings.unregistered.id,
    ]) {
      expectError(await execute({ agent_id, task }), 404, "listing_not_found");
    }
  });
});

describe("authentication", () => {
  it("is 401 without a bearer token, or with an unknown key", async () => {
    const body = { agent_id: listings.active.id, task };
    expectError(await app.http().post("/v1/execute", body), 401, "unauthorized");
    expectError(
      await app.http(`intl_test_${"a".repeat(43)}`).post("/v1/execute", body),
      401,
      "invalid_api_key",
    );
  });
});

describe("the credential, read on-chain: 403 with the contract error", () => {
  it.each([
    ["no credential", "active", stranger, "credential_not_found", "CredentialNotFound"],
    ["a spent per-task balance", "spent", renter, "insufficient_balance", "InsufficientBalance"],
    ["a paused listing", "paused", renter, "listing_paused", "ListingNotActive"],
    ["a revoked credential", "revoked", renter, "credential_revoked", "CredentialRevoked"],
    ["a closed listing", "closed", renter, "listing_closed", "ListingNotActive"],
    ["an expired subscription", "subscription", renter, "credential_expired", "CredentialExpired"],
  ] as const)("%s", async (_case, listing, account, code, contractError) => {
    const reply = await execute(
      { agent_id: listings[listing].id, task },
      { bearer: await app.tokenFor(account) },
    );
    expectOnChainError(reply, 403, code, contractError);
  });

  it("the streaming endpoint refuses alike, before any stream", async () => {
    const reply = await app
      .http(bearer)
      .post("/v1/execute/stream", { agent_id: listings.revoked.id, task });
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expectOnChainError(reply, 403, "credential_revoked", "CredentialRevoked");
  });

  it("left no run behind", async () => {
    expect(await runCountOf(renter)).toBe(0);
    expect(await runCountOf(stranger)).toBe(0);
  });
});

describe("a paused protocol", () => {
  it("refuses per-task runs, which it could not charge, with 503 and ProtocolPaused", async () => {
    const market = stack().marketplace;
    await market.mined(market.as(authority).write.setPaused([true]));
    try {
      expectOnChainError(
        await execute({ agent_id: listings.funded.id, task }),
        503,
        "service_unavailable",
        "ProtocolPaused",
      );
    } finally {
      await market.mined(market.as(authority).write.setPaused([false]));
    }
    expect(await runCountOf(renter)).toBe(0);
  });
});

describe("a chain that cannot be read", () => {
  it("is 503 service_unavailable, never a 403", async () => {
    const chainDown = createTestApp(stack(), {
      rpcUrl: `http://127.0.0.1:${await findFreePort()}`,
    });
    expectError(
      await chainDown
        .http(await chainDown.tokenFor(renter))
        .post("/v1/execute", { agent_id: listings.active.id, task }),
      503,
      "service_unavailable",
    );
  });
});

describe("the execution rate limit, per credential", () => {
  const WINDOW_START = 1_900_000_200; // a minute's start, in Unix seconds
  const headersOf = (reply: JsonResponse) => ({
    limit: reply.headers.get("x-ratelimit-limit"),
    remaining: reply.headers.get("x-ratelimit-remaining"),
    reset: reply.headers.get("x-ratelimit-reset"),
  });

  it("refuses past its limit with 429 and Retry-After; the headers tell the tighter budget", async () => {
    const now = () => (WINDOW_START + 15) * 1000;
    const tight = createTestApp(stack(), { executionRateLimitPerMinute: 2, now });
    const api = tight.http(await tight.tokenFor(limited));
    const body = { agent_id: listings.active.id, task };
    const reset = String(WINDOW_START + 60);

    // Refused on-chain (no credential), yet counted: the limit comes before the chain is read.
    const first = await api.post("/v1/execute", body);
    expectOnChainError(first, 403, "credential_not_found", "CredentialNotFound");
    expect(headersOf(first)).toEqual({ limit: "2", remaining: "1", reset });
    expect(headersOf(await api.post("/v1/execute/stream", body))).toEqual({
      limit: "2",
      remaining: "0",
      reset,
    });
    const refused = await api.post("/v1/execute", body);
    expectError(refused, 429, "rate_limit_exceeded");
    expect(headersOf(refused)).toEqual({ limit: "2", remaining: "0", reset });
    expect(refused.headers.get("retry-after")).toBe("45");

    // Another listing is another credential, with a budget of its own.
    const elsewhere = await api.post("/v1/execute", { agent_id: listings.subscription.id, task });
    expectOnChainError(elsewhere, 403, "credential_not_found", "CredentialNotFound");
    expect(headersOf(elsewhere)).toEqual({ limit: "2", remaining: "1", reset });
    // Other endpoints tell the general budget.
    expect(headersOf(await api.get("/v1/credentials")).limit).toBe("1000000");
  });

  it("tells the general budget when it is the tighter one", async () => {
    const now = () => (WINDOW_START + 75) * 1000;
    const tight = createTestApp(stack(), { rateLimitPerMinute: 3, now });
    const reply = await tight
      .http(await tight.tokenFor(limited))
      .post("/v1/execute", { agent_id: listings.active.id, task });
    expect(headersOf(reply)).toEqual({
      limit: "3",
      remaining: "2",
      reset: String(WINDOW_START + 120),
    });
  });

  it("follows the limit the listing's creator set", async () => {
    const now = () => (WINDOW_START + 135) * 1000;
    const limitedApp = createTestApp(stack(), { now });
    const set = await limitedApp
      .http(await limitedApp.tokenFor(creator))
      .put(`/v1/listings/${listings.revoked.id}/execution-limit`, { requests_per_minute: 1 });
    expect(set).toMatchObject({
      status: 200,
      body: { listing_id: listings.revoked.id, requests_per_minute: 1 },
    });

    const api = limitedApp.http(await limitedApp.tokenFor(limited));
    const body = { agent_id: listings.revoked.id, task };
    const first = await api.post("/v1/execute", body);
    expect(headersOf(first)).toMatchObject({ limit: "1", remaining: "0" });
    expectError(await api.post("/v1/execute", body), 429, "rate_limit_exceeded");
  });
});

describe("PUT /v1/listings/:id/execution-limit", () => {
  const path = () => `/v1/listings/${listings.active.id}/execution-limit`;

  it("is the listing's creator's alone: 403 forbidden for anyone else", async () => {
    for (const account of [renter, otherCreator]) {
      expectError(
        await app.http(await app.tokenFor(account)).put(path(), { requests_per_minute: 5 }),
        403,
        "forbidden",
      );
    }
  });

  it("takes 1 to MAX_EXECUTION_RATE_PER_MINUTE (600) requests a minute, as a whole number, and nothing else", async () => {
    const api = app.http(await app.tokenFor(creator));
    for (const body of [
      { requests_per_minute: 0 },
      { requests_per_minute: 601 },
      { requests_per_minute: 1.5 },
      { requests_per_minute: "5" },
      {},
      { requests_per_minute: 5, burst: 10 },
    ]) {
      expectError(await api.put(path(), body), 400, "invalid_request");
    }
    expect((await api.put(path(), { requests_per_minute: 600 })).body).toEqual({
      listing_id: listings.active.id,
      requests_per_minute: 600,
    });
  });

  it("finding: a limit above the ceiling is 400 naming the field and the ceiling, and changes nothing", async () => {
    const storedLimit = async () => {
      const [row] = await stack()
        .db.select({ requestsPerMinute: executionLimits.requestsPerMinute })
        .from(executionLimits)
        .where(eq(executionLimits.onChainListingId, listings.funded.onChainId));
      return row?.requestsPerMinute;
    };
    const fundedPath = `/v1/listings/${listings.funded.id}/execution-limit`;
    const lowCeiling = createTestApp(stack(), { maxExecutionRatePerMinute: 50 });
    const api = lowCeiling.http(await lowCeiling.tokenFor(creator));
    expect((await api.put(fundedPath, { requests_per_minute: 50 })).status).toBe(200);
    for (const requests_per_minute of [51, 10_000, 2 ** 31]) {
      const refused = await api.put(fundedPath, { requests_per_minute });
      expectError(refused, 400, "invalid_request");
      expect(refused.body.error.message).toBe("requests_per_minute: must be at most 50");
    }
    expect(await storedLimit()).toBe(50);
    // The default ceiling, 600, as the API runs unless MAX_EXECUTION_RATE_PER_MINUTE says otherwise.
    const defaultCeiling = app.http(await app.tokenFor(creator));
    const refused = await defaultCeiling.put(fundedPath, { requests_per_minute: 601 });
    expect(refused.body.error.message).toBe("requests_per_minute: must be at most 600");
    expect(await storedLimit()).toBe(50);

    // Renters meet the limit set, never the one refused.
    const execute = await app
      .http(await app.tokenFor(limited))
      .post("/v1/execute", { agent_id: listings.funded.id, task });
    expect(execute.headers.get("x-ratelimit-limit")).toBe("50");
  });

  it("is 400 invalid_listing_id for a malformed id, 404 for an unpublished listing", async () => {
    const api = app.http(await app.tokenFor(creator));
    expectError(
      await api.put("/v1/listings/lst_xyz/execution-limit", { requests_per_minute: 5 }),
      400,
      "invalid_listing_id",
    );
    expectError(
      await api.put(`/v1/listings/${listings.unlisted.id}/execution-limit`, {
        requests_per_minute: 5,
      }),
      404,
      "listing_not_found",
    );
  });
});
