import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { createApiKey, expectError } from "../../test/support/http.ts";
import { createTestApp, type TestApp } from "../../test/support/testApp.ts";
import { useStack } from "../../test/support/useStack.ts";

const stack = useStack({ chain: true, postgres: true });
const LIMIT = 3;
const WINDOW_START = 1_900_000_020; // a minute's start, in Unix seconds

/** A subject's window as stored: the units granted, and the row's version, which every write changes. */
async function windowOf(subject: string, windowStart: number) {
  const rows = (await stack().db.execute(
    sql`select granted, xmin::text as version from app.rate_limit_windows
        where subject = ${subject} and window_start = ${windowStart}`,
  )) as unknown as { granted: number; version: string }[];
  return rows[0];
}

const walletSubject = (wallet: string) => `wallet:${wallet.toLowerCase()}`;

describe("the rate limit under a flood", () => {
  it("refuses a subject over its limit without writing to the database again", async () => {
    let now = WINDOW_START * 1000 + 5_000;
    const app = createTestApp(stack(), { rateLimitPerMinute: LIMIT, now: () => now });
    const wallet = devAccount(15).address;
    const api = app.http(await app.tokenFor(devAccount(15)));

    for (let i = 0; i < LIMIT; i++) expect((await api.get("/v1/api-keys")).status).toBe(200);
    expectError(await api.get("/v1/api-keys"), 429, "rate_limit_exceeded");
    const exhausted = await windowOf(walletSubject(wallet), WINDOW_START);
    expect(exhausted?.granted).toBe(LIMIT);

    for (let i = 0; i < 50; i++) {
      const refused = await api.get("/v1/api-keys");
      expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    }
    expect(await windowOf(walletSubject(wallet), WINDOW_START)).toEqual(exhausted);

    // Another process sharing the database asks it too, so the limit stays exact across them.
    const other = createTestApp(stack(), { rateLimitPerMinute: LIMIT, now: () => now });
    expectError(
      await other.http(await other.tokenFor(devAccount(15))).get("/v1/api-keys"),
      429,
      "rate_limit_exceeded",
    );
    expect(await windowOf(walletSubject(wallet), WINDOW_START)).toEqual(exhausted);

    // The next window starts afresh.
    now += 60_000;
    expect((await api.get("/v1/api-keys")).status).toBe(200);
    expect((await windowOf(walletSubject(wallet), WINDOW_START + 60))?.granted).toBe(1);
    await Promise.all([app.close(), other.close()]);
  });

  it("writes once per leased block, not once per request, for a subject one process serves", async () => {
    const limit = 1_000;
    const requests = 300;
    const now = (WINDOW_START + 240) * 1000 + 5_000;
    const app = createTestApp(stack(), { rateLimitPerMinute: limit, now: () => now });
    await app.listening();
    const wallet = devAccount(17).address;
    const api = app.http(await app.tokenFor(devAccount(17)));

    const versions = new Set<string | undefined>();
    for (let i = 0; i < requests; i++) {
      const reply = await api.get("/v1/api-keys");
      expect(reply.status).toBe(200);
      // The headers still count every request, exactly.
      expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(limit - 1 - i));
      versions.add((await windowOf(walletSubject(wallet), WINDOW_START + 240))?.version);
    }
    // Blocks double from 1 up to 64 units: 1 + 2 + … + 32 = 63 requests, then 64 each.
    expect(versions.size).toBe(6 + Math.ceil((requests - 63) / 64));
    await app.close();
  });
});

/** Two API processes of 10,000 requests a minute, listening, their clocks in that window. */
async function twoProcessesIn(windowStart: number): Promise<TestApp[]> {
  const now = () => windowStart * 1000 + 5_000;
  const apps = [
    createTestApp(stack(), { rateLimitPerMinute: 10_000, now }),
    createTestApp(stack(), { rateLimitPerMinute: 10_000, now }),
  ];
  await Promise.all(apps.map((app) => app.listening()));
  return apps;
}

describe("one subject served by two processes at once", () => {
  it("leases blocks in each side by side, not a write per request or per step", async () => {
    const windowStart = WINDOW_START + 300;
    const apps = await twoProcessesIn(windowStart);
    const renter = devAccount(18);
    const clients = await Promise.all(
      apps.map(async (app) => app.http(await app.tokenFor(renter))),
    );

    // Each step sends 4 requests to each process at once; between steps, the row's version.
    const steps = 75;
    const versions = new Set<string | undefined>();
    for (let step = 0; step < steps; step++) {
      const replies = await Promise.all(
        clients.flatMap((client) => [1, 2, 3, 4].map(() => client.get("/v1/api-keys"))),
      );
      expect(replies.map((reply) => reply.status)).toEqual(Array(8).fill(200));
      versions.add((await windowOf(walletSubject(renter.address), windowStart))?.version);
    }
    // Each process's blocks double from 1 to 64: about 10 leases each for its 300 requests. Leasing
    // per request, or recalling each other's blocks, would write in every step.
    expect(versions.size).toBeLessThanOrEqual(30);
    expect(
      (await windowOf(walletSubject(renter.address), windowStart))?.granted,
    ).toBeGreaterThanOrEqual(steps * 8);
    await Promise.all(apps.map((app) => app.close()));
  });
});

describe("one subject's requests answered one after another, in each of two processes", () => {
  it("leases blocks in each side by side, though no two of them are ever in flight at once", async () => {
    const windowStart = WINDOW_START + 360;
    const apps = await twoProcessesIn(windowStart);
    const { key } = await servedOverHttp(apps[0] as TestApp, (url) =>
      createApiKey(url, devAccount(19), "one turn"),
    );
    const clients = apps.map((app) => app.http(key));

    // A cached key and leased units let a request be answered without waiting on anything: a process
    // handed several at once answers them one after another within one turn of the event loop.
    const steps = 75;
    const versions = new Set<string | undefined>();
    for (let step = 0; step < steps; step++) {
      for (const client of clients) {
        for (let i = 0; i < 4; i++) expect((await client.get("/v1/nope")).status).toBe(404);
      }
      versions.add((await windowOf(walletSubject(devAccount(19).address), windowStart))?.version);
    }
    // As when their requests are in flight together: a block per doubling in each process. Taking
    // each for a process serving one request at a time would recall the other's block every step.
    expect(versions.size).toBeLessThanOrEqual(30);
    await Promise.all(apps.map((app) => app.close()));
  });
});

/** `use` with `app` served over HTTP on a loopback port, as `npm run api` serves it. */
async function servedOverHttp<T>(app: TestApp, use: (url: string) => Promise<T>): Promise<T> {
  const server = serve({ fetch: app.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((listening) => server.once("listening", listening));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((closed) => server.close(closed));
  }
}

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
    expect((await windowOf("sign-in:198.51.100.9", windowStart))?.granted).toBe(LIMIT);

    // Another address signs in; the flooder's other requests spend another budget.
    const other = app.http(undefined, { peer: "198.51.100.10" });
    expect((await other.get(`/v1/auth/challenge?wallet=${wallet}`)).status).toBe(200);
    expectError(await flooder.get("/v1/listings"), 401, "unauthorized");
    expect((await windowOf("address:198.51.100.9", windowStart))?.granted).toBe(1);
    await app.close();
  });
});

describe("finding L-8: one budget per wallet, and per /64", () => {
  it("counts all of a wallet's API keys and tokens against one budget", async () => {
    const limit = 5;
    const windowStart = WINDOW_START + 420;
    // The keys are made in the window before (making one spends 2 of the wallet's requests).
    let now = (windowStart - 60) * 1000 + 5_000;
    const app = createTestApp(stack(), { rateLimitPerMinute: limit, now: () => now });
    const owner = devAccount(20);
    const [one, two] = await servedOverHttp(app, async (url) => [
      (await createApiKey(url, owner, "one")).key,
      (await createApiKey(url, owner, "two")).key,
    ]);
    now = windowStart * 1000 + 5_000;

    const remaining: (string | null)[] = [];
    for (const key of [one, two, one, two, one]) {
      const reply = await app.http(key).get("/v1/nope");
      expect(reply.status).toBe(404);
      remaining.push(reply.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    for (const bearer of [one, two, await app.tokenFor(owner)]) {
      expectError(await app.http(bearer).get("/v1/nope"), 429, "rate_limit_exceeded");
    }
    // Another wallet's budget is its own.
    expect((await app.http(await app.tokenFor(devAccount(21))).get("/v1/api-keys")).status).toBe(
      200,
    );
    await app.close();
  });

  it("counts IPv6 addresses by their /64: one /64 shares a budget, another has its own", async () => {
    const now = (WINDOW_START + 480) * 1000 + 5_000;
    const app = createTestApp(stack(), {
      rateLimitPerMinute: LIMIT,
      authRateLimitPerMinute: LIMIT,
      now: () => now,
    });
    const from = (peer: string) => app.http(undefined, { peer });
    const sameSlash64 = ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:3"];
    const challenge = `/v1/auth/challenge?wallet=${devAccount(22).address}`;

    for (const peer of sameSlash64) {
      expectError(await from(peer).get("/v1/listings"), 401, "unauthorized");
      expect((await from(peer).get(challenge)).status).toBe(200);
    }
    expectError(await from("2001:db8:1:2::4").get("/v1/listings"), 429, "rate_limit_exceeded");
    expectError(await from("2001:db8:1:2::4").get(challenge), 429, "rate_limit_exceeded");

    const otherSlash64 = from("2001:db8:1:3::1");
    expectError(await otherSlash64.get("/v1/listings"), 401, "unauthorized");
    expect((await otherSlash64.get(challenge)).status).toBe(200);
    await app.close();
  });
});
