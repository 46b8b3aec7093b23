// Authentication over HTTP against the whole stack: wallet challenges and JWTs, API keys, the 401
// codes of every way a credential can be wrong, what the key table stores and what the logs print.
import { createHash, randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { decodeJwt, SignJWT, UnsecuredJWT } from "jose";
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { createSiweMessage, parseSiweMessage } from "viem/siwe";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_OUTSTANDING_CHALLENGES } from "../../api/auth/challenges.ts";
import { createApiKey } from "../../devStack/client/createApiKey.ts";
import { JWT_SECRET } from "../../devStack/startStack.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { authChallenges } from "../../lib/db/appSchema.ts";
import { expectError, http } from "../support/http.ts";
import { until } from "../support/registration.ts";
import { secretScan } from "../support/secretScan.ts";
import { sendFrom } from "../support/sendFrom.ts";
import { createTestApp } from "../support/testApp.ts";
import { useStack } from "../support/useStack.ts";

const alice = devAccount(4);
const bob = devAccount(5);
const carol = devAccount(6);

/**
 * Everything every process of the stack prints during this file, scanned at the end for every key,
 * token and signature this file sends or receives: none may ever reach a log line.
 */
const scan = secretScan();
/** Every API key issued in this file, with its id, to compare against the stored table. */
const issuedKeys: { id: string; key: string }[] = [];

const API_KEY = /^intl_test_[0-9A-Za-z]{43}$/;
const CHALLENGE = /^intl:auth:(\d+):[0-9a-f]+$/;
/** A key-creation challenge names the network and the chain (anvil's 31337) the key is for. */
const KEY_CHALLENGE = /^intl:create-api-key:test:31337:(\d+):[0-9a-f]{32}$/;
const NO_SUCH_LISTING = `lst_${"0".repeat(64)}`;
const secretKey = new TextEncoder().encode(JWT_SECRET);

// A high limit: this file tests authentication, and its ~200 requests must not hit the rate limit
// (unauthenticated requests share one per-address budget). test/api/rateLimit.test.ts covers that.
const stack = useStack({ ponder: true, rateLimitPerMinute: 100_000, onOutput: scan.onOutput });
let url: string;
const api = http(() => url);

beforeAll(async () => {
  url = (await stack().addApi()).url;
});

function nowSeconds() {
  return Math.floor(Date.now() / 1000);
}

/** personal_sign by `account`, remembered as a secret for the log scan. */
async function sign(account: HDAccount, message: string): Promise<Hex> {
  const signature = await account.signMessage({ message });
  scan.remember("wallet signature", signature);
  scan.remember("wallet signature", signature.slice(2));
  return signature;
}

function rememberToken(token: string) {
  scan.remember("JWT", token);
  const signaturePart = token.split(".")[2];
  if (signaturePart) scan.remember("JWT signature", signaturePart);
}

async function challengeFor(wallet: string): Promise<string> {
  const reply = await api.get(`/v1/auth/challenge?wallet=${wallet}`);
  expect(reply.status).toBe(200);
  return reply.body.challenge;
}

function postToken(body: unknown) {
  return api.post("/v1/auth/token", body);
}

async function signIn(account: HDAccount): Promise<string> {
  const challenge = await challengeFor(account.address);
  const signature = await sign(account, challenge);
  const reply = await postToken({ wallet: account.address, challenge, signature });
  expect(reply.status).toBe(200);
  rememberToken(reply.body.token);
  return reply.body.token;
}

async function keyChallengeFor(token: string): Promise<string> {
  const reply = await api.get("/v1/api-keys/challenge", { bearer: token });
  expect(reply.status).toBe(200);
  expect(reply.body.challenge).toMatch(KEY_CHALLENGE);
  return reply.body.challenge;
}

/** The body of `POST /v1/api-keys`: a fresh key-creation challenge and `label`, signed by `account`. */
async function confirmation(account: HDAccount, token: string, label: string) {
  const challenge = await keyChallengeFor(token);
  return { label, challenge, signature: await sign(account, `${challenge}:${label}`) };
}

/** Sends a key confirmation; a key it creates is remembered for the checks on storage and logs. */
async function postKey(token: string, body: unknown) {
  const reply = await api.post("/v1/api-keys", body, { bearer: token });
  if (reply.status === 201) {
    const { id, key } = reply.body;
    scan.remember("API key", key);
    scan.remember("API key", key.slice("intl_test_".length));
    issuedKeys.push({ id, key });
  }
  return reply;
}

async function createKey(account: HDAccount, token: string, label: string) {
  return postKey(token, await confirmation(account, token, label));
}

/** A token with our HMAC key unless told otherwise: claims as the API issues them, overridable. */
async function forgeToken(
  options: {
    key?: Uint8Array;
    alg?: string;
    sub?: string | null;
    iss?: string;
    aud?: string;
    exp?: number | null;
  } = {},
): Promise<string> {
  const now = nowSeconds();
  let jwt = new SignJWT({})
    .setProtectedHeader({ alg: options.alg ?? "HS256", typ: "JWT" })
    .setIssuer(options.iss ?? "intl")
    .setAudience(options.aud ?? "intl-api")
    .setIssuedAt(now - 5);
  const sub = options.sub === undefined ? alice.address.toLowerCase() : options.sub;
  if (sub !== null) jwt = jwt.setSubject(sub);
  const exp = options.exp === undefined ? now + 600 : options.exp;
  if (exp !== null) jwt = jwt.setExpirationTime(exp);
  const token = await jwt.sign(options.key ?? secretKey);
  rememberToken(token);
  return token;
}

function base64url(value: unknown) {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Both bearer-protected read endpoints answer `status` and `code` for `bearer`. */
async function expectRefused(bearer: string | undefined, status: number, code: string) {
  for (const path of ["/v1/listings", "/v1/credentials"]) {
    expectError(await api.get(path, { bearer }), status, code);
  }
}

async function expectAccepted(bearer: string) {
  const listings = await api.get("/v1/listings", { bearer });
  expect(listings.status).toBe(200);
  expect(listings.body).toMatchObject({ listings: [], total: 0, limit: 20, offset: 0 });
  const credentials = await api.get("/v1/credentials", { bearer });
  expect(credentials.status).toBe(200);
  expect(credentials.body).toStrictEqual({ credentials: [], total: 0 });
}

describe("wallet sign-in", () => {
  it("issues a challenge of the documented form, valid 60 seconds", async () => {
    const before = nowSeconds();
    const reply = await api.get(`/v1/auth/challenge?wallet=${alice.address}`);
    const after = nowSeconds();
    expect(reply.status).toBe(200);
    const body = reply.body;
    expect(Object.keys(body).sort()).toEqual(["challenge", "expires_at"]);
    const match = CHALLENGE.exec(body.challenge);
    expect(match, body.challenge).not.toBeNull();
    const issued = Number(match?.[1]);
    expect(issued).toBeGreaterThanOrEqual(before);
    expect(issued).toBeLessThanOrEqual(after);
    expect(body.expires_at).toBe(issued + 60);

    // Fresh randomness every time, in any letter case of the address.
    const again = await challengeFor(alice.address.toLowerCase());
    expect(again).toMatch(CHALLENGE);
    expect(again).not.toBe(body.challenge);
  });

  it("exchanges a signed challenge for a one-hour JWT that is a bearer on listings and credentials", async () => {
    const challenge = await challengeFor(alice.address);
    const signature = await sign(alice, challenge);
    const before = nowSeconds();
    // The wallet may be sent in another letter case than the one the challenge was asked for.
    const reply = await postToken({ wallet: alice.address.toLowerCase(), challenge, signature });
    const after = nowSeconds();
    expect(reply.status).toBe(200);
    const body = reply.body;
    expect(Object.keys(body).sort()).toEqual(["expires_at", "token"]);
    rememberToken(body.token);
    expect(body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(body.expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(body.expires_at).toBeLessThanOrEqual(after + 3600);
    expect(decodeJwt(body.token)).toMatchObject({
      sub: alice.address.toLowerCase(),
      iss: "intl",
      aud: "intl-api",
      exp: body.expires_at,
    });

    await expectAccepted(body.token);
  });

  it("refuses a replayed challenge, also when the replays race each other", async () => {
    const challenge = await challengeFor(alice.address);
    const signature = await sign(alice, challenge);
    const body = { wallet: alice.address, challenge, signature };
    expect((await postToken(body)).status).toBe(200);
    expectError(await postToken(body), 401, "unauthorized");

    // Single use holds under concurrency: of five simultaneous exchanges exactly one wins.
    const raced = await challengeFor(bob.address);
    const racedBody = { wallet: bob.address, challenge: raced, signature: await sign(bob, raced) };
    const replies = await Promise.all(Array.from({ length: 5 }, () => postToken(racedBody)));
    for (const reply of replies) {
      if (reply.status === 200) rememberToken(reply.body.token);
    }
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((reply) => reply.status !== 200)) {
      expectError(reply, 401, "unauthorized");
    }
  });

  it("refuses an expired challenge", async () => {
    // The challenge lives 60 s. Rather than wait a minute, store exactly the row GET
    // /v1/auth/challenge would have stored 61 s ago: same format, same wallet, expires_at one second
    // in the past. The server decides expiry from that stored expires_at against its own clock, so
    // this is the same state waiting would produce. The control row, identical but unexpired, is
    // accepted, so the refusal is due to the expiry alone.
    const now = nowSeconds();
    const store = async (issuedAt: number) => {
      const challenge = `intl:auth:${issuedAt}:${randomBytes(16).toString("hex")}`;
      await stack()
        .db.insert(authChallenges)
        .values({
          challenge,
          wallet: alice.address.toLowerCase(),
          requester: "127.0.0.1",
          expiresAt: new Date((issuedAt + 60) * 1000),
        });
      return { wallet: alice.address, challenge, signature: await sign(alice, challenge) };
    };

    const expired = await store(now - 61);
    expectError(await postToken(expired), 401, "unauthorized");

    const control = await store(now);
    const accepted = await postToken(control);
    expect(accepted.status).toBe(200);
    rememberToken(accepted.body.token);
  });

  it("refuses an unknown challenge and one issued to another wallet", async () => {
    const unknown = `intl:auth:${nowSeconds()}:${randomBytes(16).toString("hex")}`;
    expectError(
      await postToken({
        wallet: alice.address,
        challenge: unknown,
        signature: await sign(alice, unknown),
      }),
      401,
      "unauthorized",
    );

    // Bob signs Alice's challenge and presents it as his own: it was not issued to him.
    const alicesChallenge = await challengeFor(alice.address);
    const bobsSignature = await sign(bob, alicesChallenge);
    expectError(
      await postToken({
        wallet: bob.address,
        challenge: alicesChallenge,
        signature: bobsSignature,
      }),
      401,
      "unauthorized",
    );
  });

  it("refuses a challenge signed by another wallet with invalid_signature", async () => {
    const challenge = await challengeFor(alice.address);
    const signature = await sign(bob, challenge);
    expectError(
      await postToken({ wallet: alice.address, challenge, signature }),
      401,
      "invalid_signature",
    );
  });

  it("refuses malformed and wrong signatures with invalid_signature", async () => {
    const challenge = await challengeFor(alice.address);
    const good = await sign(alice, challenge);
    const otherMessage = await sign(alice, `${challenge}x`);
    const flippedV = `${good.slice(0, -2)}${good.endsWith("1b") ? "1c" : "1b"}` as Hex;
    const malformed = [
      "0x",
      "0x1234",
      `0x${"00".repeat(65)}`,
      `0x${"ff".repeat(65)}`,
      // (Not the 64-byte r||s: viem reads that as an EIP-2098 compact signature, which is valid.)
      `${good}00`, // 66 bytes
      `${good.slice(0, -2)}05`, // recovery byte out of range
      flippedV,
      otherMessage,
      `0x${"ab".repeat(500)}`,
    ];
    for (const signature of malformed) {
      scan.remember("wallet signature", signature);
      const reply = await postToken({ wallet: alice.address, challenge, signature });
      expect({ signature, status: reply.status, body: reply.body }).toStrictEqual({
        signature,
        status: 401,
        body: { error: { code: "invalid_signature", message: expect.any(String), status: 401 } },
      });
    }
    // Not hex at all is a malformed body, refused before any signature check.
    expectError(
      await postToken({ wallet: alice.address, challenge, signature: "not-hex" }),
      400,
      "invalid_request",
    );
    // None of these used the challenge up.
    const reply = await postToken({ wallet: alice.address, challenge, signature: good });
    expect(reply.status).toBe(200);
    rememberToken(reply.body.token);
  });
});

describe("finding L-1: nobody can evict a wallet's challenges", () => {
  it("signs a wallet in with its challenge though another address asked for a dozen more since", async () => {
    const victim = devAccount(7);
    const challengeFrom = async (address: string) => {
      const reply = await http(() => url, { send: sendFrom(address) }).get(
        `/v1/auth/challenge?wallet=${victim.address}`,
      );
      expect(reply.status).toBe(200);
      return reply.body.challenge as string;
    };
    const signed = async (challenge: string) => ({
      wallet: victim.address,
      challenge,
      signature: await sign(victim, challenge),
    });

    const own = await challengeFrom("127.0.1.2");
    // The flood comes in a later second, so that the wallet's own challenge is the oldest of all.
    const issuedAt = Number(CHALLENGE.exec(own)?.[1]);
    await until("the next second", () => nowSeconds() > issuedAt, 5_000);
    const flood: string[] = [];
    for (let i = 0; i < 2 * MAX_OUTSTANDING_CHALLENGES + 2; i++) {
      flood.push(await challengeFrom("127.0.1.3"));
    }

    const token = await http(() => url, { send: sendFrom("127.0.1.2") }).post(
      "/v1/auth/token",
      await signed(own),
    );
    expect(token.status).toBe(200);
    rememberToken(token.body.token);
    // The flooder's own challenges stay bounded: it keeps five, its newest among them.
    const usable: boolean[] = [];
    for (const challenge of flood) {
      const reply = await postToken(await signed(challenge));
      if (reply.status === 200) rememberToken(reply.body.token);
      else expectError(reply, 401, "unauthorized");
      usable.push(reply.status === 200);
    }
    expect(usable.filter(Boolean)).toHaveLength(MAX_OUTSTANDING_CHALLENGES);
    expect(usable.at(-1)).toBe(true);
  });
});

describe("JWT bearer tokens", () => {
  it("accepts a token forged with the API's own key and claims (the control for the cases below)", async () => {
    await expectAccepted(await forgeToken());
  });

  it("refuses alg: none", async () => {
    const now = nowSeconds();
    const unsecured = new UnsecuredJWT({})
      .setSubject(alice.address.toLowerCase())
      .setIssuer("intl")
      .setAudience("intl-api")
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .encode();
    // The same with a real token's payload and signature kept, and with other spellings of "none".
    const [, payload, signature] = (await signIn(alice)).split(".");
    const variants = [
      unsecured,
      `${base64url({ alg: "none", typ: "JWT" })}.${payload}.`,
      `${base64url({ alg: "none", typ: "JWT" })}.${payload}.${signature}`,
      `${base64url({ alg: "None" })}.${payload}.`,
      `${base64url({ alg: "NONE" })}.${payload}.`,
      `${base64url({ alg: "HS256", typ: "JWT" })}.${payload}.`,
    ];
    for (const token of variants) {
      scan.remember("JWT", token);
      await expectRefused(token, 401, "unauthorized");
    }
  });

  it("refuses a token signed with another key, or another algorithm", async () => {
    await expectRefused(await forgeToken({ key: randomBytes(32) }), 401, "unauthorized");
    await expectRefused(
      await forgeToken({ key: new TextEncoder().encode(`${JWT_SECRET}x`) }),
      401,
      "unauthorized",
    );
    await expectRefused(await forgeToken({ alg: "HS512" }), 401, "unauthorized");
    await expectRefused(await forgeToken({ alg: "HS384" }), 401, "unauthorized");
  });

  it("refuses a token with a tampered payload", async () => {
    const [header, payload, signature] = (await signIn(alice)).split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString());
    const tampered = `${header}.${base64url({ ...claims, sub: bob.address.toLowerCase() })}.${signature}`;
    scan.remember("JWT", tampered);
    await expectRefused(tampered, 401, "unauthorized");
  });

  it("refuses a token of another issuer or audience, or without a wallet subject or expiry", async () => {
    await expectRefused(await forgeToken({ iss: "someone-else" }), 401, "unauthorized");
    await expectRefused(await forgeToken({ aud: "other-api" }), 401, "unauthorized");
    await expectRefused(await forgeToken({ sub: "not-a-wallet" }), 401, "unauthorized");
    await expectRefused(await forgeToken({ sub: null }), 401, "unauthorized");
    await expectRefused(await forgeToken({ exp: null }), 401, "unauthorized");
  });

  it("refuses a token past expires_at with jwt_expired, only when it is otherwise genuine", async () => {
    const expired = await forgeToken({ exp: nowSeconds() - 5 });
    await expectRefused(expired, 401, "jwt_expired");
    // An expired token under another key says nothing about our tokens: plain unauthorized.
    await expectRefused(
      await forgeToken({ key: randomBytes(32), exp: nowSeconds() - 5 }),
      401,
      "unauthorized",
    );
  });

  it("refuses garbage tokens and other schemes, and a missing header", async () => {
    for (const token of ["garbage", "a.b.c", "eyJhbGciOiJIUzI1NiJ9", "eyJ.eyJ.", "...", "0x1234"]) {
      await expectRefused(token, 401, "unauthorized");
    }
    for (const header of ["Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer ", "Token abc"]) {
      for (const path of ["/v1/listings", "/v1/credentials"]) {
        const reply = await api.get(path, { headers: { authorization: header } });
        expectError(reply, 401, "unauthorized");
      }
    }
    for (const path of ["/v1/listings", "/v1/credentials", `/v1/listings/${NO_SUCH_LISTING}`]) {
      expectError(await api.get(path), 401, "unauthorized");
    }
    expectError(await api.get("/v1/api-keys"), 401, "unauthorized");
  });
});

describe("API keys", () => {
  it("creates a key shown once, lists it without the secret, and revokes it for the very next request", async () => {
    const token = await signIn(alice);
    const before = Date.now();
    const created = await createKey(alice, token, "ci runner");
    expect(created.status).toBe(201);
    const body = created.body;
    const key: string = body.key;
    expect(body).toStrictEqual({
      id: expect.any(String),
      label: "ci runner",
      // A confirmation of the spec-era format names no scopes: the key gets a renter's.
      scopes: ["run", "read"],
      daily_spend_cap_wei: null,
      allowed_listings: null,
      preview: `${key.slice(0, 16)}…`,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      revoked_at: null,
      key: expect.stringMatching(API_KEY),
    });
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 2_000);
    expect(Date.parse(body.created_at)).toBeLessThanOrEqual(Date.now() + 2_000);
    const id: string = body.id;

    await expectAccepted(key);

    // The list shows the key's description, never its value.
    const listed = await api.get("/v1/api-keys", { bearer: token });
    expect(listed.status).toBe(200);
    const entries: { id: string }[] = listed.body.api_keys;
    expect(entries.find((entry) => entry.id === id)).toStrictEqual({
      id,
      label: "ci runner",
      // A confirmation of the spec-era format names no scopes: the key gets a renter's.
      scopes: ["run", "read"],
      daily_spend_cap_wei: null,
      allowed_listings: null,
      preview: `${key.slice(0, 16)}…`,
      created_at: body.created_at,
      revoked_at: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(0, 17));
    expect(Object.keys(listed.body)).toEqual(["api_keys"]);

    // Another wallet neither sees nor revokes it.
    const bobsToken = await signIn(bob);
    const bobsList = await api.get("/v1/api-keys", { bearer: bobsToken });
    expect(bobsList.status).toBe(200);
    expect(JSON.stringify(bobsList.body)).not.toContain(id);
    expectError(await api.del(`/v1/api-keys/${id}`, { bearer: bobsToken }), 404, "not_found");
    await expectAccepted(key);

    // A second key of the same wallet outlives the first one's revocation.
    const second = await createKey(alice, token, "spare");
    expect(second.status).toBe(201);
    const secondKey: string = second.body.key;
    expect(secondKey).not.toBe(key);

    const revoked = await api.del(`/v1/api-keys/${id}`, { bearer: token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toStrictEqual({
      id,
      label: "ci runner",
      // A confirmation of the spec-era format names no scopes: the key gets a renter's.
      scopes: ["run", "read"],
      daily_spend_cap_wei: null,
      allowed_listings: null,
      preview: `${key.slice(0, 16)}…`,
      created_at: body.created_at,
      revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The very next request with the key fails.
    await expectRefused(key, 401, "invalid_api_key");
    await expectAccepted(secondKey);

    const afterRevocation = await api.get("/v1/api-keys", { bearer: token });
    const entry = afterRevocation.body.api_keys.find((item: { id: string }) => item.id === id);
    expect(entry?.revoked_at).toEqual(expect.any(String));
    expectError(await api.del(`/v1/api-keys/${id}`, { bearer: token }), 404, "not_found");
  });

  it("refuses creation unless the wallet signed this label recently", async () => {
    const token = await signIn(carol);
    const create = (body: unknown) => api.post("/v1/api-keys", body, { bearer: token });

    const challenge = await keyChallengeFor(token);
    const otherLabel = await sign(carol, `${challenge}:other`);
    expectError(
      await create({ label: "mine", challenge, signature: otherLabel }),
      401,
      "invalid_signature",
    );
    const byBob = await sign(bob, `${challenge}:mine`);
    expectError(
      await create({ label: "mine", challenge, signature: byBob }),
      401,
      "invalid_signature",
    );
    // A challenge the API issued 301 s ago (they live 300 s), stored as GET /v1/api-keys/challenge
    // would have stored it then.
    const old = nowSeconds() - 301;
    const stale = `intl:create-api-key:test:31337:${old}:${randomBytes(16).toString("hex")}`;
    await stack()
      .db.insert(authChallenges)
      .values({
        challenge: stale,
        wallet: carol.address.toLowerCase(),
        requester: "127.0.0.1",
        expiresAt: new Date((old + 300) * 1000),
      });
    expectError(
      await create({
        label: "mine",
        challenge: stale,
        signature: await sign(carol, `${stale}:mine`),
      }),
      401,
      "invalid_signature",
    );
    const listed = await api.get("/v1/api-keys", { bearer: token });
    expect(listed.body).toStrictEqual({ api_keys: [] });
  });

  it("manages keys only with a wallet token: a key on /v1/api-keys is forbidden", async () => {
    const token = await signIn(bob);
    const created = await createKey(bob, token, "bob's key");
    expect(created.status).toBe(201);
    const { key, id } = created.body;

    expectError(await api.get("/v1/api-keys", { bearer: key }), 403, "forbidden");
    expectError(await api.del(`/v1/api-keys/${id}`, { bearer: key }), 403, "forbidden");
    expectError(await api.get("/v1/api-keys/challenge", { bearer: key }), 403, "forbidden");
    const fromAKey = await confirmation(bob, token, "from a key");
    expectError(await api.post("/v1/api-keys", fromAKey, { bearer: key }), 403, "forbidden");
    await expectAccepted(key);
  });

  it("refuses unknown keys and keys of the wrong prefix with invalid_api_key", async () => {
    const token = await signIn(carol);
    const created = await createKey(carol, token, "prefix test");
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    await expectAccepted(key);

    const random = () => {
      const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
      return Array.from(randomBytes(43), (byte) => alphabet[byte % 62]).join("");
    };
    const wrong = [
      key.replace("intl_test_", "intl_live_"), // the live twin of a valid key
      `intl_live_${random()}`,
      `intl_test_${random()}`, // well-formed, never issued
      `${key.slice(0, -1)}${key.endsWith("a") ? "b" : "a"}`,
      `${key}x`,
      "intl_test_",
      "intl_test_short",
      "intl_prod_abc",
    ];
    for (const bad of wrong) {
      scan.remember("API key", bad);
      await expectRefused(bad, 401, "invalid_api_key");
    }
  });
});

describe("finding: API-key confirmation is single use and bound to the network", () => {
  const dave = devAccount(9);

  async function activeKeysLabelled(label: string) {
    const rows = (await stack().db.execute(
      sql`select id from app.api_keys where wallet = ${dave.address.toLowerCase()}
          and label = ${label} and revoked_at is null`,
    )) as unknown as unknown[];
    return rows.length;
  }

  it("issues key-creation challenges that name the network and chain, valid five minutes", async () => {
    const token = await signIn(dave);
    const before = nowSeconds();
    const reply = await api.get("/v1/api-keys/challenge", { bearer: token });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(["challenge", "expires_at"]);
    const issued = Number(KEY_CHALLENGE.exec(reply.body.challenge)?.[1]);
    expect(issued).toBeGreaterThanOrEqual(before);
    expect(reply.body.expires_at).toBe(issued + 300);
    // Without a wallet token there is none to have.
    expectError(await api.get("/v1/api-keys/challenge"), 401, "unauthorized");
  });

  it("creates one key from a confirmation sent twice, or sent five times at once", async () => {
    const token = await signIn(dave);
    const once = await confirmation(dave, token, "sent twice");
    expect((await postKey(token, once)).status).toBe(201);
    expectError(await postKey(token, once), 401, "invalid_signature");
    // Nor under a new session of the same wallet.
    expectError(await postKey(await signIn(dave), once), 401, "invalid_signature");
    expect(await activeKeysLabelled("sent twice")).toBe(1);

    const raced = await confirmation(dave, token, "raced");
    const replies = await Promise.all(Array.from({ length: 5 }, () => postKey(token, raced)));
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
    for (const reply of replies.filter((reply) => reply.status !== 201)) {
      expectError(reply, 401, "invalid_signature");
    }
    expect(await activeKeysLabelled("raced")).toBe(1);
  });

  it("refuses a confirmation signed for another network or chain, even over a shared database", async () => {
    const token = await signIn(dave);
    const signedHere = await confirmation(dave, token, "this network only");
    // The same service on the live network, and on another chain, with this API's database and key.
    for (const elsewhere of [
      createTestApp(stack(), { network: "live" }),
      createTestApp(stack(), { chainId: 1 }),
    ]) {
      const reply = await elsewhere
        .http(await elsewhere.tokenFor(dave))
        .post("/v1/api-keys", signedHere);
      expectError(reply, 401, "invalid_signature");
    }
    expect(await activeKeysLabelled("this network only")).toBe(0);
    // The control: here, where it was issued and signed, the confirmation is good.
    expect((await postKey(token, signedHere)).status).toBe(201);
  });

  it("keeps the two kinds of challenge apart: neither is accepted for the other", async () => {
    const token = await signIn(dave);
    const signInChallenge = await challengeFor(dave.address);
    const asKey = {
      label: "from a sign-in challenge",
      challenge: signInChallenge,
      signature: await sign(dave, `${signInChallenge}:from a sign-in challenge`),
    };
    expectError(await postKey(token, asKey), 401, "invalid_signature");

    const keyChallenge = await keyChallengeFor(token);
    const asSignIn = {
      wallet: dave.address,
      challenge: keyChallenge,
      signature: await sign(dave, keyChallenge),
    };
    expectError(await postToken(asSignIn), 401, "unauthorized");
  });
});

describe("finding M-5: sign-in messages name this API, and a phished one is refused", () => {
  const erin = devAccount(10);
  /** How the test server is reached: the host its messages must name. */
  const host = () => new URL(url).host;

  async function siweChallengeFor(wallet: string): Promise<string> {
    const reply = await api.get(`/v1/auth/challenge?wallet=${wallet}&format=siwe`);
    expect(reply.status).toBe(200);
    return reply.body.challenge;
  }

  /** A message as a hostile page would have the wallet sign: this API's nonce, other fields. */
  function rewritten(message: string, change: Partial<ReturnType<typeof parseSiweMessage>>) {
    const fields = parseSiweMessage(message);
    return createSiweMessage({ ...fields, ...change } as Parameters<typeof createSiweMessage>[0]);
  }

  it("issues an EIP-4361 message naming this API's host, URI, chain, the wallet, a nonce and a 60 s expiry", async () => {
    const before = nowSeconds();
    const reply = await api.get(`/v1/auth/challenge?wallet=${erin.address}&format=siwe`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(["challenge", "expires_at"]);
    const message: string = reply.body.challenge;
    expect(message.split("\n")[0]).toBe(
      `${host()} wants you to sign in with your Ethereum account:`,
    );
    const fields = parseSiweMessage(message);
    expect(fields).toMatchObject({
      domain: host(),
      uri: new URL(url).origin,
      address: erin.address,
      chainId: 31337,
      version: "1",
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const issuedAt = Math.floor((fields.issuedAt as Date).getTime() / 1000);
    expect(issuedAt).toBeGreaterThanOrEqual(before);
    expect(reply.body.expires_at).toBe(issuedAt + 60);
    expect((fields.expirationTime as Date).getTime()).toBe(reply.body.expires_at * 1000);

    const signature = await sign(erin, message);
    const token = await postToken({ wallet: erin.address, challenge: message, signature });
    expect(token.status).toBe(200);
    rememberToken(token.body.token);
    await expectAccepted(token.body.token);
  });

  it("refuses a message for another domain or URI, another chain, an expired one, and a replayed nonce", async () => {
    const message = await siweChallengeFor(erin.address);
    const attempt = async (signed: string) =>
      postToken({ wallet: erin.address, challenge: signed, signature: await sign(erin, signed) });

    // A hostile page has the wallet sign a message naming the page, with a nonce this API issued.
    for (const hostile of [
      rewritten(message, { domain: "wallet-login.example" }),
      rewritten(message, { uri: "https://wallet-login.example" }),
      rewritten(message, { chainId: 1 }),
      rewritten(message, { expirationTime: new Date(Date.now() - 1_000) }),
      rewritten(message, { statement: "Claim your airdrop." }),
    ]) {
      expectError(await attempt(hostile), 401, "unauthorized");
    }
    // The control: the nonce is untouched by the refusals, and the message as issued signs in once.
    const accepted = await attempt(message);
    expect(accepted.status).toBe(200);
    rememberToken(accepted.body.token);
    expectError(await attempt(message), 401, "unauthorized");
  });

  it("refuses a message whose nonce expired on this API's clock, or was never issued", async () => {
    const message = await siweChallengeFor(erin.address);
    const signature = await sign(erin, message);
    const later = createTestApp(stack(), { now: () => Date.now() + 61_000 });
    // The test app is reached as api.test: the same message, naming that host, from its clock.
    const asThere = rewritten(message, { domain: "api.test", uri: "http://api.test" });
    const reply = await later.http().post("/v1/auth/token", {
      wallet: erin.address,
      challenge: asThere,
      signature: await sign(erin, asThere),
    });
    expectError(reply, 401, "unauthorized");
    const unknown = rewritten(message, { nonce: randomBytes(16).toString("hex") });
    expectError(
      await postToken({
        wallet: erin.address,
        challenge: unknown,
        signature: await sign(erin, unknown),
      }),
      401,
      "unauthorized",
    );
    expect((await postToken({ wallet: erin.address, challenge: message, signature })).status).toBe(
      200,
    );
  });

  it("names PUBLIC_URL when set, whatever Host the request carries", async () => {
    const behindProxy = createTestApp(stack(), { publicUrl: "https://api.example.com" });
    const reply = await behindProxy
      .http()
      .get(`/v1/auth/challenge?wallet=${erin.address}&format=siwe`);
    expect(parseSiweMessage(reply.body.challenge)).toMatchObject({
      domain: "api.example.com",
      uri: "https://api.example.com",
    });
  });

  it("confirms a key with a message naming its label and scopes; one naming others creates nothing", async () => {
    const token = await signIn(erin);
    const query = "format=siwe&label=deploy%20bot&scopes=read,run";
    const issued = await api.get(`/v1/api-keys/challenge?${query}`, { bearer: token });
    expect(issued.status).toBe(200);
    const message: string = issued.body.challenge;
    expect(parseSiweMessage(message)).toMatchObject({
      domain: host(),
      statement: 'Create an API key labelled "deploy bot" with the scopes: run, read.',
    });
    expect(issued.body.expires_at - nowSeconds()).toBeGreaterThan(290);
    const signature = await sign(erin, message);
    const body = { label: "deploy bot", scopes: ["run", "read"], challenge: message, signature };

    // The same signature offered for more power, or another label, or another site's message.
    expectError(
      await postKey(token, { ...body, scopes: ["run", "read", "create"] }),
      401,
      "invalid_signature",
    );
    expectError(await postKey(token, { ...body, label: "other bot" }), 401, "invalid_signature");
    const elsewhere = rewritten(message, { domain: "wallet-login.example" });
    expectError(
      await postKey(token, {
        ...body,
        challenge: elsewhere,
        signature: await sign(erin, elsewhere),
      }),
      401,
      "invalid_signature",
    );
    // Scopes are named only by a SIWE message.
    const legacy = await confirmation(erin, token, "deploy bot");
    expectError(await postKey(token, { ...legacy, scopes: ["create"] }), 400, "invalid_request");

    const created = await postKey(token, body);
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(["run", "read"]);
    expectError(await postKey(token, body), 401, "invalid_signature");
  });
});

describe("finding L-6: an API key may do only what its scopes allow", () => {
  const frank = devAccount(11);
  const JOB = "/v1/jobs/job_0000000000000000000000000000000000000000";

  it("refuses a key without `create` the creator's endpoints, and one without `read` or `run` theirs, with 403 forbidden", async () => {
    const keyWith = async (label: string, scopes: ("run" | "read" | "create")[]) => {
      const created = await createApiKey(url, frank, label, scopes);
      scan.remember("API key", created.key);
      issuedKeys.push(created);
      return created.key;
    };
    const renter = await keyWith("renter", ["run", "read"]);
    const runner = await keyWith("runner", ["run"]);
    const creator = await keyWith("creator", ["create"]);
    const manifest = { name: "x" };
    const run = { agent_id: NO_SUCH_LISTING, task: "summarise" };

    for (const key of [renter, runner]) {
      // Registering and reading jobs (which carry webhook secrets) are a creator's.
      expectError(await api.post("/v1/agents", manifest, { bearer: key }), 403, "forbidden");
      expectError(await api.get(JOB, { bearer: key }), 403, "forbidden");
    }
    expectError(await api.get("/v1/credentials", { bearer: runner }), 403, "forbidden");
    expectError(await api.post("/v1/execute", run, { bearer: creator }), 403, "forbidden");
    expectError(await api.get("/v1/listings", { bearer: creator }), 403, "forbidden");

    // Each key does what its scopes name: past the scope check, to the endpoint's own answer.
    expect((await api.get("/v1/credentials", { bearer: renter })).status).toBe(200);
    expectError(await api.post("/v1/execute", run, { bearer: runner }), 404, "listing_not_found");
    expectError(await api.get(JOB, { bearer: creator }), 404, "job_not_found");
    // A wallet's own token may do everything.
    expectError(await api.get(JOB, { bearer: await signIn(frank) }), 404, "job_not_found");
  });

  it("lists each key's scopes, and gives a key confirmed without naming any a renter's", async () => {
    const token = await signIn(frank);
    const created = await createKey(frank, token, "spec client");
    expect(created.body.scopes).toEqual(["run", "read"]);
    expectError(await api.get(JOB, { bearer: created.body.key }), 403, "forbidden");
    const listed = await api.get("/v1/api-keys", { bearer: token });
    const scopesByLabel = Object.fromEntries(
      listed.body.api_keys.map((key: { label: string; scopes: string[] }) => [
        key.label,
        key.scopes,
      ]),
    );
    expect(scopesByLabel).toMatchObject({
      renter: ["run", "read"],
      runner: ["run"],
      creator: ["create"],
      "spec client": ["run", "read"],
    });
  });

  it("documents the scope every endpoint needs of an API key, and refuses each to a key without it", async () => {
    type Operations = Record<string, Record<string, { security: Record<string, string[]>[] }>>;
    const document = (await api.get("/v1/openapi.json")).body as { paths: Operations };
    const keys = {
      run: await createApiKey(url, frank, "all but run", ["read", "create"]),
      read: await createApiKey(url, frank, "all but read", ["run", "create"]),
      create: await createApiKey(url, frank, "all but create", ["run", "read"]),
    };
    for (const created of Object.values(keys)) {
      scan.remember("API key", created.key);
      issuedKeys.push(created);
    }
    const checked: string[] = [];
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const keyScopes = operation.security.find((each) => "apiKey" in each)?.apiKey;
        if (keyScopes === undefined) continue;
        const name = `${method.toUpperCase()} ${template}`;
        // MCP checks a key's scopes per tool (test/execution/mcpServer.test.ts).
        if (name === "POST /mcp") continue;
        expect(keyScopes, name).toHaveLength(1);
        const scope = keyScopes[0] as keyof typeof keys;
        const path = template.replace(/\{[^}]+\}/g, "x");
        const answer = await api.send(
          method.toUpperCase(),
          path,
          method === "get" ? undefined : {},
          {
            bearer: keys[scope].key,
          },
        );
        expectError(answer, 403, "forbidden");
        expect(answer.body.error.message, name).toContain(`'${scope}'`);
        checked.push(name);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining(["POST /v1/execute", "GET /v1/jobs/{job_id}", "POST /a2a/{id}"]),
    );
    expect(checked.length).toBeGreaterThanOrEqual(28);
  });
});

describe("what is stored and printed", () => {
  it("keeps no usable key material: only SHA-256 hashes and short previews", async () => {
    expect(issuedKeys.length).toBeGreaterThanOrEqual(4);
    const rows = (await stack().db.execute(sql`select * from app.api_keys`)) as unknown as Record<
      string,
      unknown
    >[];
    expect(rows.length).toBe(issuedKeys.length);
    for (const { id, key } of issuedKeys) {
      const row = rows.find((candidate) => candidate.id === id);
      expect(row, id).toBeDefined();
      expect(row?.key_hash).toBe(createHash("sha256").update(key).digest("hex"));
      expect(row?.key_preview).toBe(`${key.slice(0, 16)}…`);

      // The preview shows the first 6 characters of the 43-character secret; no column may hold
      // any longer run of it.
      const secret = key.slice("intl_test_".length);
      const windows = Array.from({ length: secret.length - 6 }, (_, i) => secret.slice(i, i + 7));
      for (const stored of rows) {
        for (const [column, value] of Object.entries(stored)) {
          const text = value instanceof Date ? value.toISOString() : String(value);
          expect(text.includes(key), `${column} holds a key`).toBe(false);
          const leaked = windows.find((window) => text.includes(window));
          expect(
            leaked,
            `${column} of ${String(stored.id)} holds part of a secret`,
          ).toBeUndefined();
        }
      }
    }
  });

  it("never prints a key, token or signature in any process's output", async () => {
    // The API's output arrives through a pipe, in order: once the log line of a last request is
    // in, so is every line the API printed before it.
    const last = `/v1/last-request-${Date.now()}`;
    await fetch(`${url}${last}`);
    await until("the last request's log line", () => scan.text().includes(last));
    // The scan means something only if every process's output and the request log were captured.
    expect(scan.unheard(["postgres", "ponder", "api"])).toEqual([]);
    const requests = scan
      .text()
      .split("\n")
      .filter((line) => line.includes('"message":"request"'));
    expect(requests.length).toBeGreaterThan(100);
    expect(scan.rememberedCount()).toBeGreaterThan(50);
    expect(scan.leaks(stack())).toEqual([]);
  });
});
