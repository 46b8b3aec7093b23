import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { rateLimitWindows } from "../../lib/db/appSchema.ts";
import { expectError } from "../../test/support/http.ts";
import { createTestApp } from "../../test/support/testApp.ts";
import { useStack } from "../../test/support/useStack.ts";

const stack = useStack({ chain: true, postgres: true });
const LIMIT = 3;
const WINDOW_START = 1_900_000_020; // a minute's start, in Unix seconds

async function countedFor(wallet: string, windowStart: number) {
  return countedAs(`wallet:${wallet.toLowerCase()}`, windowStart);
}

async function countedAs(subject: string, windowStart: number) {
  const [row] = await stack()
    .db.select({ count: rateLimitWindows.count })
    .from(rateLimitWindows)
    .where(
      and(eq(rateLimitWindows.subject, subject), eq(rateLimitWindows.windowStart, windowStart)),
    );
  return row?.count;
}

describe("the rate limit under a flood", () => {
  it("refuses a subject over its limit without writing to the database again", async () => {
    let now = WINDOW_START * 1000 + 5_000;
    const app = createTestApp(stack(), { rateLimitPerMinute: LIMIT, now: () => now });
    const wallet = devAccount(15).address;
    const api = app.http(await app.tokenFor(devAccount(15)));

    for (let i = 0; i < LIMIT; i++) expect((await api.get("/v1/api-keys")).status).toBe(200);
    expectError(await api.get("/v1/api-keys"), 429, "rate_limit_exceeded");
    expect(await countedFor(wallet, WINDOW_START)).toBe(LIMIT + 1);

    for (let i = 0; i < 50; i++) {
      const refused = await api.get("/v1/api-keys");
      expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    }
    expect(await countedFor(wallet, WINDOW_START)).toBe(LIMIT + 1);

    // Another process sharing the database still counts, so the limit stays exact across them.
    const other = createTestApp(stack(), { rateLimitPerMinute: LIMIT, now: () => now });
    expectError(
      await other.http(await other.tokenFor(devAccount(15))).get("/v1/api-keys"),
      429,
      "rate_limit_exceeded",
    );
    expect(await countedFor(wallet, WINDOW_START)).toBe(LIMIT + 2);

    // The next window starts afresh.
    now += 60_000;
    expect((await api.get("/v1/api-keys")).status).toBe(200);
    expect(await countedFor(wallet, WINDOW_START + 60)).toBe(1);
  });
});

describe("the sign-in budget under a flood", () => {
  it("refuses an address over it without writing to the database again, and no one else", async () => {
    const now = (WINDOW_START + 120) * 1000 + 5_000;
    const windowStart = WINDOW_START + 120;
    const app = createTestApp(stack(), {
      rateLimitPerMinute: LIMIT,
      authRateLimitPerMinute: LIMIT,
      now: () => now,
    });
    const wallet = devAccount(16).address;
    const flooder = app.http(undefined, { peer: "198.51.100.9" });
    const challenge = () => flooder.get(`/v1/auth/challenge?wallet=${wallet}`);

    for (let i = 0; i < LIMIT; i++) expect((await challenge()).status).toBe(200);
    expectError(await challenge(), 429, "rate_limit_exceeded");
    for (let i = 0; i < 50; i++) {
      const refused = await flooder.post("/v1/auth/token", {
        wallet,
        challenge: "x",
        signature: "0x",
      });
      expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    }
    expect(await countedAs("sign-in:198.51.100.9", windowStart)).toBe(LIMIT + 1);

    // Another address signs in; the flooder's other requests spend another budget.
    const other = app.http(undefined, { peer: "198.51.100.10" });
    expect((await other.get(`/v1/auth/challenge?wallet=${wallet}`)).status).toBe(200);
    expectError(await flooder.get("/v1/listings"), 401, "unauthorized");
    expect(await countedAs("address:198.51.100.9", windowStart)).toBe(1);
  });
});
