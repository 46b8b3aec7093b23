// What anyone can make the API store stays bounded: challenges (unauthenticated) and API keys.
import { and, count, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeyConfirmationMessage } from "../lib/auth/messages.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { apiKeys, authChallenges } from "../lib/db/appSchema.ts";
import { expectError } from "../test/support/http.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { useStack } from "../test/support/useStack.ts";
import { MAX_OUTSTANDING_CHALLENGES } from "./auth/challenges.ts";
import { MAX_ACTIVE_KEYS } from "./routes/apiKeys.ts";

const stack = useStack({ chain: true, postgres: true });

async function challengesOf(wallet: string) {
  return stack()
    .db.select({ challenge: authChallenges.challenge })
    .from(authChallenges)
    .where(eq(authChallenges.wallet, wallet.toLowerCase()));
}

describe("finding: bounded tables from unauthenticated endpoints", () => {
  it("keep a wallet's newest challenges only, and the newest still signs in", async () => {
    const victim = devAccount(11);
    const api = createTestApp(stack()).http();
    const issued: string[] = [];
    for (let i = 0; i < 40; i++) {
      const answer = await api.get(`/v1/auth/challenge?wallet=${victim.address}`);
      expect(answer.status).toBe(200);
      issued.push(answer.body.challenge);
    }
    const newest = issued.at(-1) as string;
    const kept = (await challengesOf(victim.address)).map((row) => row.challenge);
    expect(kept).toHaveLength(MAX_OUTSTANDING_CHALLENGES);
    expect(kept).toContain(newest);
    for (const challenge of kept) expect(issued).toContain(challenge);

    const signature = await victim.signMessage({ message: newest });
    const token = await api.post("/v1/auth/token", {
      wallet: victim.address,
      challenge: newest,
      signature,
    });
    expect(token.status).toBe(200);
  });

  it("count each purpose apart: sign-in challenges asked for by anyone never evict a key-creation challenge", async () => {
    const victim = devAccount(16);
    const app = createTestApp(stack());
    const own = app.http(await app.tokenFor(victim));
    const { challenge } = (await own.get("/v1/api-keys/challenge")).body;
    const anyone = app.http();
    for (let i = 0; i < 2 * MAX_OUTSTANDING_CHALLENGES; i++) {
      expect((await anyone.get(`/v1/auth/challenge?wallet=${victim.address}`)).status).toBe(200);
    }
    const signature = await victim.signMessage({
      message: apiKeyConfirmationMessage(challenge, "kept"),
    });
    expect((await own.post("/v1/api-keys", { label: "kept", challenge, signature })).status).toBe(
      201,
    );
  });

  it("forget expired challenges", async () => {
    const wallet = devAccount(12).address;
    let now = Date.now() - 120_000;
    const api = createTestApp(stack(), { now: () => now }).http();
    expect((await api.get(`/v1/auth/challenge?wallet=${wallet}`)).status).toBe(200);
    expect(await challengesOf(wallet)).toHaveLength(1);
    now = Date.now();
    await api.get(`/v1/auth/challenge?wallet=${devAccount(13).address}`);
    expect(await challengesOf(wallet)).toHaveLength(0);
  });

  it(`cap a wallet's active API keys at ${MAX_ACTIVE_KEYS}, concurrent requests included`, async () => {
    const owner = devAccount(14);
    const app = createTestApp(stack());
    const api = app.http(await app.tokenFor(owner));
    /** Confirmations of `labels`, each over a challenge of its own, ready to be sent at once. */
    const confirmations = async (labels: string[]) => {
      const bodies = [];
      for (const label of labels) {
        const { challenge } = (await api.get("/v1/api-keys/challenge")).body;
        const message = apiKeyConfirmationMessage(challenge, label);
        bodies.push({ label, challenge, signature: await owner.signMessage({ message }) });
      }
      return bodies;
    };
    const createAtOnce = async (labels: string[]) => {
      const bodies = await confirmations(labels);
      return Promise.all(bodies.map((body) => api.post("/v1/api-keys", body)));
    };
    const labels = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `key ${from + i}`);

    // A wallet holds at most MAX_OUTSTANDING_CHALLENGES of them, so the keys come in batches.
    const answers = [];
    let made = 0;
    while (made < MAX_ACTIVE_KEYS - 2) {
      const n = Math.min(MAX_OUTSTANDING_CHALLENGES, MAX_ACTIVE_KEYS - 2 - made);
      answers.push(...(await createAtOnce(labels(made, n))));
      made += n;
    }
    // Five at once for the last two places: two pass, three are refused.
    const raced = await createAtOnce(labels(made, MAX_OUTSTANDING_CHALLENGES));
    answers.push(...raced);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_ACTIVE_KEYS);
    expect(raced.filter((answer) => answer.status === 201)).toHaveLength(2);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expectError(refused, 400, "invalid_request");
    }
    const [active] = await stack()
      .db.select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.wallet, owner.address.toLowerCase()), isNull(apiKeys.revokedAt)));
    expect(active?.n).toBe(MAX_ACTIVE_KEYS);

    const revoked = answers.find((answer) => answer.status === 201)?.body.id;
    expect((await api.del(`/v1/api-keys/${revoked}`)).status).toBe(200);
    const [afterRevocation] = await confirmations(["after a revocation"]);
    expect((await api.post("/v1/api-keys", afterRevocation)).status).toBe(201);
  });
});
