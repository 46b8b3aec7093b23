// The rate limit over HTTP with two API processes sharing one database: 100 requests per minute per
// wallet (all its API keys and tokens together) in fixed windows aligned to the minute, headers on
// every response, 429 with Retry-After.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { createApiKey, expectError, http, type JsonResponse, signIn } from "../support/http.ts";
import { inOneWindow } from "../support/inOneWindow.ts";
import { sendFrom } from "../support/sendFrom.ts";
import { useStack } from "../support/useStack.ts";

const LIMIT = 100;
const NO_SUCH_LISTING = `lst_${"0".repeat(64)}`;

const stack = useStack({ api: 2 }); // the default 100 per minute
/** The two API processes: requests alternate between them. */
const urls = () => stack().apis.map((api) => api.url) as [string, string];

type Reply = {
  url: string;
  status: number;
  body: unknown;
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: string | null;
  /** When the answer arrived, in milliseconds since the epoch. */
  receivedAt: number;
};

async function get(url: string, path: string, bearer?: string): Promise<Reply> {
  const { status, headers, body } = await http(url).get(path, { bearer });
  const header = (name: string) => {
    const value = headers.get(name);
    // Present on every response, errors included, and a whole number.
    expect(value, `${name} on ${status} ${path}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    url,
    status,
    body,
    limit: header("x-ratelimit-limit"),
    remaining: header("x-ratelimit-remaining"),
    reset: header("x-ratelimit-reset"),
    retryAfter: headers.get("retry-after"),
    receivedAt: Date.now(),
  };
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

const sleepUntil = (ms: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())));

/** Requests of every outcome the counted budget must cover: 200, 400 and both kinds of 404. */
const MIXED = [
  { path: "/v1/listings", status: 200 },
  { path: "/v1/listings?limit=0", status: 400, code: "invalid_request" },
  { path: `/v1/listings/${NO_SUCH_LISTING}`, status: 404, code: "listing_not_found" },
  { path: "/v1/credentials", status: 200 },
  { path: "/v1/no-such-endpoint", status: 404, code: "not_found" },
] as const;

/** What making its two API keys costs a wallet's budget: a challenge and a confirmation each. */
const KEY_MAKING = 4;

/**
 * A wallet's 101st request, on two new keys taking turns, alternating between the processes; then
 * more on them, and on a budget that must stay untouched: the JWT of a wallet that has made no
 * authenticated request yet. A new wallet each attempt, so each has its own budget in its window.
 */
async function burst(attempt: number) {
  const owner = devAccount(5 + 2 * attempt);
  const keys = [
    (await createApiKey(urls()[0], owner, `burst ${attempt}`)).key,
    (await createApiKey(urls()[1], owner, `other ${attempt}`)).key,
  ] as const;
  const jwt = await signIn(urls()[0], devAccount(6 + 2 * attempt));

  const startedAt = Date.now();
  const replies: Reply[] = [];
  for (let i = KEY_MAKING; i < LIMIT; i++) {
    const request = MIXED[i % MIXED.length] as (typeof MIXED)[number];
    replies.push(await get(urls()[i % 2] as string, request.path, keys[i % 2]));
  }
  const over = await get(urls()[LIMIT % 2] as string, "/v1/listings", keys[0]);
  const refused: Reply[] = [];
  for (const [index, path] of [
    "/v1/listings",
    "/v1/listings?limit=0",
    "/v1/credentials",
  ].entries()) {
    refused.push(await get(urls()[index % 2] as string, path, keys[(index + 1) % 2]));
  }
  const byJwt = await get(urls()[1], "/v1/credentials", jwt);
  const last = await get(urls()[1], "/v1/listings", keys[0]);
  return { key: keys[0], startedAt, replies, over, refused, byJwt, last };
}

describe("the rate limit", () => {
  it("answers a wallet's 101st request in a minute with 429, across its keys and two API processes (finding L-8)", async () => {
    const { key, startedAt, replies, over, refused, byJwt, last } = await inOneWindow(burst);

    // Both processes and both keys served, and every outcome counted: Remaining ran down to 0 across
    // them, from what making the keys left.
    expect(new Set(replies.map((reply) => reply.url))).toEqual(new Set(urls()));
    replies.forEach((reply, n) => {
      const i = n + KEY_MAKING;
      const request = MIXED[i % MIXED.length] as (typeof MIXED)[number];
      expect({ i, status: reply.status, limit: reply.limit, remaining: reply.remaining }).toEqual({
        i,
        status: request.status,
        limit: LIMIT,
        remaining: LIMIT - 1 - i,
      });
      if ("code" in request) expectError(reply, request.status, request.code);
      expect(reply.retryAfter).toBeNull();
    });

    // The reset is the end of the current minute, the same on every answer of the window.
    const reset = (minuteOf(startedAt) + 1) * 60;
    const all = [...replies, over, ...refused, byJwt, last];
    expect(new Set(all.map((reply) => reply.reset))).toEqual(new Set([reset]));

    // The 101st: 429 with Retry-After in seconds, up to the window's end, and the headers.
    expectError(over, 429, "rate_limit_exceeded");
    expect({ limit: over.limit, remaining: over.remaining }).toEqual({
      limit: LIMIT,
      remaining: 0,
    });
    expect(over.retryAfter).toMatch(/^\d+$/);
    const retryAfter = Number(over.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const secondsLeft = reset - over.receivedAt / 1000;
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(secondsLeft));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(secondsLeft) + 1);

    // Both processes now refuse both keys, whatever the request (the limit comes before validation).
    for (const reply of refused) {
      expectError(reply, 429, "rate_limit_exceeded");
      expect(reply.remaining).toBe(0);
      expect(Number(reply.retryAfter)).toBeGreaterThanOrEqual(1);
    }

    // Another wallet's budget is its own, in this same window.
    expect({ status: byJwt.status, remaining: byJwt.remaining }).toEqual({
      status: 200,
      remaining: LIMIT - 1,
    });
    expectError(last, 429, "rate_limit_exceeded");
    expect(last.retryAfter).toMatch(/^\d+$/);

    // After Retry-After seconds, and no longer, the key works again, in a new window. The passing of
    // time is what is tested: the window ends on the minute (up to 60 s away); the turn of a window
    // under an injected clock is api/middleware/rateLimit.test.ts's.
    await sleepUntil(last.receivedAt + Number(last.retryAfter) * 1000);
    const later = await get(urls()[1], "/v1/listings", key);
    expect({ status: later.status, remaining: later.remaining, reset: later.reset }).toEqual({
      status: 200,
      remaining: LIMIT - 1,
      reset: reset + 60,
    });
  }, 240_000);

  it("puts the headers on 401s too, counted per caller address", async () => {
    const unknownKey = `intl_test_${randomBytes(32).toString("hex").slice(0, 43)}`;
    const replies = await inOneWindow(async () => [
      await get(urls()[0], "/v1/listings"),
      await get(urls()[1], "/v1/credentials", unknownKey),
      await get(urls()[0], "/v1/listings", "not-a-token"),
    ]);
    expectError(replies[0] as Reply, 401, "unauthorized");
    expectError(replies[1] as Reply, 401, "invalid_api_key");
    expectError(replies[2] as Reply, 401, "unauthorized");
    for (const reply of replies) {
      expect(reply.limit).toBe(LIMIT);
      expect(reply.remaining).toBeLessThan(LIMIT);
      expect(reply.reset % 60).toBe(0);
    }
    // One budget for all three: same address, same window.
    const [first, , third] = replies as [Reply, Reply, Reply];
    expect(third.reset).toBe(first.reset);
    expect(third.remaining).toBe(first.remaining - 2);
  });
});

describe("finding: rate limiting that holds behind a proxy", () => {
  const BUDGET = 5;
  const signer = devAccount(12);
  /** Small budgets, so that a test can use one up; the process sees each client's own address. */
  let direct: string;
  /** TRUST_PROXY=1: the test is the proxy in front of it, and says whom it forwards. */
  let proxied: string;

  beforeAll(async () => {
    const budgets = {
      RATE_LIMIT_PER_MINUTE: String(BUDGET),
      AUTH_RATE_LIMIT_PER_MINUTE: String(BUDGET),
    };
    const [one, other] = await Promise.all([
      stack().addApi(budgets),
      stack().addApi({ ...budgets, TRUST_PROXY: "1" }),
    ]);
    [direct, proxied] = [one.url, other.url];
  });

  /** A client at `address`, connecting to `url` from it, or through the test when `forwardedFor`. */
  function client(url: string, address: string, forwardedFor?: string) {
    const headers = forwardedFor ? { "x-forwarded-for": forwardedFor } : undefined;
    const api = http(url, { send: sendFrom(address), headers });
    return {
      challenge: () => api.get(`/v1/auth/challenge?wallet=${signer.address}`),
      /** A whole sign-in: a challenge, then the token for it. */
      signIn: async () => {
        const asked = await api.get(`/v1/auth/challenge?wallet=${signer.address}`);
        if (asked.status !== 200) return asked;
        const { challenge } = asked.body;
        const signature = await signer.signMessage({ message: challenge });
        return api.post("/v1/auth/token", { wallet: signer.address, challenge, signature });
      },
      listings: () => api.get("/v1/listings"),
    };
  }
  const remaining = (reply: { headers: Headers }) =>
    Number(reply.headers.get("x-ratelimit-remaining"));

  it("one address using up its sign-in budget stops neither another address nor its own other requests", async () => {
    await inOneWindow(async (attempt) => {
      const greedy = client(direct, `127.0.${attempt}.2`);
      for (let i = 0; i < BUDGET; i++) expect((await greedy.challenge()).status).toBe(200);
      expectError(await greedy.challenge(), 429, "rate_limit_exceeded");
      // Its sign-in budget is its own: unauthenticated calls elsewhere spend another.
      expectError(await greedy.listings(), 401, "unauthorized");

      const other = client(direct, `127.0.${attempt}.3`);
      expect((await other.signIn()).status).toBe(200);

      // Nor does using up the other budget touch signing in.
      const noisy = client(direct, `127.0.${attempt}.4`);
      for (let i = 0; i < BUDGET; i++) expectError(await noisy.listings(), 401, "unauthorized");
      expectError(await noisy.listings(), 429, "rate_limit_exceeded");
      expect((await noisy.signIn()).status).toBe(200);
    });
  });

  it("without TRUST_PROXY a spoofed X-Forwarded-For changes nothing: one address, one budget", async () => {
    await inOneWindow(async (attempt) => {
      const replies = [];
      for (let i = 0; i <= BUDGET; i++) {
        const spoofer = client(direct, `127.0.${attempt}.5`, `198.51.100.${i + 1}`);
        replies.push(await spoofer.challenge());
      }
      expect(replies.slice(0, BUDGET).map(remaining)).toEqual([4, 3, 2, 1, 0]);
      expectError(replies[BUDGET] as JsonResponse, 429, "rate_limit_exceeded");
    });
  });

  it("behind a trusted proxy each client has its own budget, whatever it adds to X-Forwarded-For", async () => {
    await inOneWindow(async (attempt) => {
      // Every request arrives from the proxy's address; the proxy appends the client's.
      const proxy = `127.0.${attempt}.6`;
      const greedy = `203.0.113.${attempt}`;
      for (let i = 0; i < BUDGET; i++) {
        expect((await client(proxied, proxy, greedy).challenge()).status).toBe(200);
      }
      expectError(await client(proxied, proxy, greedy).challenge(), 429, "rate_limit_exceeded");
      // Writing other addresses into the header itself: the proxy appends the real one after them.
      for (const claimed of ["198.51.100.77", "198.51.100.78, 10.0.0.1", "not an address"]) {
        expectError(
          await client(proxied, proxy, `${claimed}, ${greedy}`).challenge(),
          429,
          "rate_limit_exceeded",
        );
      }

      const other = client(proxied, proxy, `203.0.113.${100 + attempt}`);
      expect((await other.signIn()).status).toBe(200);
    });
  });
});
