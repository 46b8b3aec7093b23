// The rate limit over HTTP with two API processes sharing one database: 100 requests per minute per
// API key in fixed windows aligned to the minute, headers on every response, 429 with Retry-After.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { startTestStack, type TestStack } from "../harness/stack.ts";
import { createApiKey, signIn } from "../support/http.ts";

const LIMIT = 100;
const NO_SUCH_LISTING = `lst_${"0".repeat(64)}`;

let stack: TestStack;
/** The two API processes: requests alternate between them. */
let urls: [string, string];

beforeAll(async () => {
  stack = await startTestStack({ apiProcesses: 2 }); // the default 100 per minute
  const [first, second] = stack.apis;
  if (!first || !second) throw new Error("expected two API processes");
  urls = [first.url, second.url];
});
afterAll(async () => {
  await stack?.stop();
});

type Reply = {
  url: string;
  status: number;
  body: unknown;
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: string | null;
};

async function get(url: string, path: string, bearer?: string): Promise<Reply> {
  const response = await fetch(`${url}${path}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
    signal: AbortSignal.timeout(15_000),
  });
  const header = (name: string) => {
    const value = response.headers.get(name);
    // Present on every response, errors included, and a whole number.
    expect(value, `${name} on ${response.status} ${path}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    url,
    status: response.status,
    body: await response.json(),
    limit: header("x-ratelimit-limit"),
    remaining: header("x-ratelimit-remaining"),
    reset: header("x-ratelimit-reset"),
    retryAfter: response.headers.get("retry-after"),
  };
}

function expectError(reply: Reply, status: number, code: string) {
  expect({ status: reply.status, body: reply.body }).toStrictEqual({
    status,
    body: { error: { code, message: expect.any(String), status } },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Windows are fixed and aligned to the minute. Start only with at least `seconds` of the current
 * window left, so a burst of ~100 requests (well under a second, a few on a loaded machine) falls
 * in one window; the caller still checks that every reply names the same reset, and retries if not.
 */
async function waitForRoomInWindow(seconds: number) {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < seconds) await sleep((left + 0.5) * 1000);
}

/** Requests of every outcome the counted budget must cover: 200, 400 and both kinds of 404. */
const MIXED = [
  { path: "/v1/listings", status: 200 },
  { path: "/v1/listings?limit=0", status: 400, code: "invalid_request" },
  { path: `/v1/listings/${NO_SUCH_LISTING}`, status: 404, code: "listing_not_found" },
  { path: "/v1/credentials", status: 200 },
  { path: "/v1/no-such-endpoint", status: 404, code: "not_found" },
] as const;

describe("the rate limit", () => {
  it("answers the 101st request in a minute on one key with 429, across two API processes", async () => {
    const owner = devAccount(2);
    // Budgets that must stay untouched by the burst: another key of the same wallet, and the JWT of
    // a wallet that has not made an authenticated request yet.
    const otherKey = (await createApiKey(urls[1], owner, "other")).key;
    const jwt = await signIn(urls[0], devAccount(3));

    for (let attempt = 1; attempt <= 3; attempt++) {
      const { key } = await createApiKey(urls[0], owner, `burst ${attempt}`);
      await waitForRoomInWindow(20);
      const started = Math.floor(Date.now() / 1000);

      const replies: Reply[] = [];
      for (let i = 0; i < LIMIT; i++) {
        const request = MIXED[i % MIXED.length] as (typeof MIXED)[number];
        replies.push(await get(urls[i % 2] as string, request.path, key));
      }
      const over = await get(urls[LIMIT % 2] as string, "/v1/listings", key);
      const resets = new Set([...replies, over].map((reply) => reply.reset));
      if (resets.size > 1) continue; // the window turned mid-burst after all: again, with a new key

      // Both processes served, and every outcome counted: Remaining ran down 99..0 across them.
      expect(new Set(replies.map((reply) => reply.url))).toEqual(new Set(urls));
      replies.forEach((reply, i) => {
        const request = MIXED[i % MIXED.length] as (typeof MIXED)[number];
        expect({ i, status: reply.status, limit: reply.limit, remaining: reply.remaining }).toEqual(
          {
            i,
            status: request.status,
            limit: LIMIT,
            remaining: LIMIT - 1 - i,
          },
        );
        if ("code" in request) expectError(reply, request.status, request.code);
        expect(reply.retryAfter).toBeNull();
      });

      // The reset is the end of the current minute.
      const reset = over.reset;
      expect(reset % 60).toBe(0);
      expect(reset).toBeGreaterThan(started);
      expect(reset).toBeLessThanOrEqual(started + 60);

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
      const secondsLeft = reset - Date.now() / 1000;
      expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(secondsLeft));
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil(secondsLeft) + 1);

      // Both processes now refuse the key, whatever the request (the limit comes before validation).
      for (const [index, path] of [
        "/v1/listings",
        "/v1/listings?limit=0",
        "/v1/credentials",
      ].entries()) {
        const reply = await get(urls[index % 2] as string, path, key);
        expectError(reply, 429, "rate_limit_exceeded");
        expect(reply.remaining).toBe(0);
        expect(Number(reply.retryAfter)).toBeGreaterThanOrEqual(1);
      }

      // Other budgets are their own, in this same window.
      const other = await get(urls[0], "/v1/listings", otherKey);
      expect({ status: other.status, remaining: other.remaining, reset: other.reset }).toEqual({
        status: 200,
        remaining: LIMIT - 1,
        reset,
      });
      const byJwt = await get(urls[1], "/v1/credentials", jwt);
      expect({ status: byJwt.status, remaining: byJwt.remaining, reset: byJwt.reset }).toEqual({
        status: 200,
        remaining: LIMIT - 1,
        reset,
      });
      expectError(await get(urls[1], "/v1/listings", key), 429, "rate_limit_exceeded");

      // After Retry-After seconds the key works again, in a new window.
      await sleep(Number((await get(urls[0], "/v1/listings", key)).retryAfter) * 1000 + 500);
      const later = await get(urls[1], "/v1/listings", key);
      expect({ status: later.status, remaining: later.remaining, reset: later.reset }).toEqual({
        status: 200,
        remaining: LIMIT - 1,
        reset: reset + 60,
      });
      return;
    }
    throw new Error("no attempt fitted 101 requests into one window");
  }, 240_000);

  it("puts the headers on 401s too, counted per caller address", async () => {
    const unknownKey = `intl_test_${randomBytes(32).toString("hex").slice(0, 43)}`;
    const replies = [
      await get(urls[0], "/v1/listings"),
      await get(urls[1], "/v1/credentials", unknownKey),
      await get(urls[0], "/v1/listings", "not-a-token"),
    ];
    expectError(replies[0] as Reply, 401, "unauthorized");
    expectError(replies[1] as Reply, 401, "invalid_api_key");
    expectError(replies[2] as Reply, 401, "unauthorized");
    for (const reply of replies) {
      expect(reply.limit).toBe(LIMIT);
      expect(reply.remaining).toBeLessThan(LIMIT);
      expect(reply.reset % 60).toBe(0);
    }
    // One budget for all three (same address, same window unless the minute turned in between).
    const [first, , third] = replies as [Reply, Reply, Reply];
    if (first.reset === third.reset) expect(third.remaining).toBe(first.remaining - 2);
  });
});
