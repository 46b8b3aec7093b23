// What an endpoint behind authentication answers to callers it cannot identify, and past the rate
// limit; run against each such endpoint's paths.
import { randomBytes } from "node:crypto";
import type { HDAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { issueToken, type JwtSettings, jwtSettings } from "../../api/auth/jwt.ts";
import { JWT_SECRET } from "../../devStack/startStack.ts";
import type { CheckedHttp } from "./checkedHttp.ts";
import { createApiKey, expectError, http, signIn } from "./http.ts";

/** The API's own token settings (SERVICE_NAME `intl`), signed with `secret`. */
const tokenSettings = (secret: Uint8Array): JwtSettings => jwtSettings("intl", secret);

/** A wallet token as the API issues them, but signed with `secret` and issued at `issuedAt`. */
async function forgedToken(wallet: HDAccount, secret: Uint8Array, issuedAt: number) {
  return (await issueToken(wallet.address, tokenSettings(secret), issuedAt)).token;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export type AuthenticatedEndpoints = {
  api: CheckedHttp;
  apiUrl: () => string;
  /** One path of each endpoint; the rate limit burst takes them in turn. */
  paths: () => string[];
  /** A wallet the endpoints answer 200 for. */
  wallet: HDAccount;
  /** Requests a minute the stack allows each caller. */
  rateLimitPerMinute: number;
};

export function describeAuthenticatedEndpoints(
  name: string,
  { api, apiUrl, paths, wallet, rateLimitPerMinute: limit }: AuthenticatedEndpoints,
) {
  describe(`${name}: authentication and the rate limit`, () => {
    it("answers 401 unauthorized without a usable bearer token", async () => {
      const wrongSecret = await forgedToken(wallet, randomBytes(32), nowSeconds());
      const basic = { authorization: `Basic ${btoa("renter:secret")}` };
      for (const path of paths()) {
        expectError(await api.get(path), 401, "unauthorized");
        expectError(await api.get(path, { headers: basic }), 401, "unauthorized");
        expectError(await api.get(path, { bearer: "not-a-token" }), 401, "unauthorized");
        expectError(await api.get(path, { bearer: wrongSecret }), 401, "unauthorized");
      }
    });

    it("answers 401 invalid_api_key to an unknown, revoked or other-network key", async () => {
      const { id, key } = await createApiKey(apiUrl(), wallet, "to revoke");
      const owner = http(apiUrl, { bearer: await signIn(apiUrl(), wallet) });
      expect((await owner.del(`/v1/api-keys/${id}`)).status).toBe(200);
      const unknown = `intl_test_${"A".repeat(43)}`;
      const live = `intl_live_${key.slice("intl_test_".length)}`;
      for (const path of paths()) {
        for (const bearer of [key, unknown, live]) {
          expectError(await api.get(path, { bearer }), 401, "invalid_api_key");
        }
      }
    });

    it("answers 401 jwt_expired to an expired wallet token, and 200 to a fresh one", async () => {
      const expired = await forgedToken(
        wallet,
        new TextEncoder().encode(JWT_SECRET),
        nowSeconds() - 7200,
      );
      const fresh = await signIn(apiUrl(), wallet);
      for (const path of paths()) {
        expectError(await api.get(path, { bearer: expired }), 401, "jwt_expired");
        expect((await api.get(path, { bearer: fresh })).status).toBe(200);
      }
    });

    it(`answers ${limit} requests a minute of a wallet, then 429 rate_limit_exceeded with Retry-After`, async () => {
      // All of a wallet's keys and tokens spend one budget, which this file's other requests have
      // used some of: the burst spends what is left, Remaining counting down from its first answer.
      // Within one window, or the burst proves nothing: a burst the window turned in is sent again
      // at once, in the new window (a burst takes seconds, a window a minute, so the second is whole).
      const { key } = await createApiKey(apiUrl(), wallet, "burst");
      const send = (n: number) => api.get(paths()[n % paths().length] as string, { bearer: key });
      for (let attempt = 1; ; attempt++) {
        const startedAt = nowSeconds();
        const first = await send(0);
        if (first.status === 429 && attempt < 3) {
          // The file's other requests spent the whole budget: the burst starts in the next window.
          const reset = Number(first.headers.get("x-ratelimit-reset")) * 1000;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, reset - Date.now())));
          continue;
        }
        const replies = [first];
        const left = Number(first.headers.get("x-ratelimit-remaining"));
        for (let n = 1; n <= left + 1; n++) replies.push(await send(n));
        const windows = new Set(replies.map((reply) => reply.headers.get("x-ratelimit-reset")));
        if (windows.size > 1 && attempt < 3) continue;

        expect(windows.size, "one window").toBe(1);
        expect(left).toBeLessThan(limit);
        expect(
          replies.map((reply) => [reply.status, reply.headers.get("x-ratelimit-remaining")]),
        ).toEqual([
          ...Array.from({ length: left + 1 }, (_, n) => [200, String(left - n)]),
          [429, "0"],
        ]);
        expect(new Set(replies.map((reply) => reply.headers.get("x-ratelimit-limit")))).toEqual(
          new Set([String(limit)]),
        );
        const refused = replies.at(-1) as (typeof replies)[number];
        expectError(refused, 429, "rate_limit_exceeded");
        // Retry-After counts the seconds until the window resets.
        const reset = Number(refused.headers.get("x-ratelimit-reset"));
        const retryAfter = Number(refused.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(reset - retryAfter).toBeGreaterThanOrEqual(startedAt);
        expect(reset - retryAfter).toBeLessThanOrEqual(nowSeconds());
        return;
      }
    });
  });
}
