// API keys are cached in each API process (api/auth/apiKeyCache.ts), yet three processes sharing one
// database agree on every key: a key created in one works at once in the others, a revocation in
// one holds for the next request in every other, and a process whose listen connection breaks still
// refuses a revoked key, at once when the break is seen and within API_KEY_REVALIDATE_MS when not.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { API_KEY_REVALIDATE_MS } from "../../api/limits.ts";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { addListeningApi, listenerBackend, nextListenerBackend } from "../support/apiListener.ts";
import { createApiKey, expectError, http, signIn } from "../support/http.ts";
import { useStack } from "../support/useStack.ts";

// The rate limit is not under test here: high enough never to refuse.
const stack = useStack({ ponder: true, rateLimitPerMinute: 100_000 });
const owner = devAccount(6);
let processes: { api: Api; listenerId: string }[];
let ownerToken: string;

beforeAll(async () => {
  processes = await Promise.all([1, 2, 3].map(() => addListeningApi(stack())));
  ownerToken = await signIn(processes[0]?.api.url as string, owner);
});

const urlOf = (process: number) => processes[process % processes.length]?.api.url as string;
const listings = (process: number, key: string) =>
  http(urlOf(process)).get("/v1/listings", { bearer: key });

async function expectAccepted(process: number, key: string) {
  expect((await listings(process, key)).status, `accepted by process ${process}`).toBe(200);
}
async function expectRevoked(process: number, key: string) {
  expectError(await listings(process, key), 401, "invalid_api_key");
}
/** Uses `key` on every process a few times over, so that each has it cached. */
async function useEverywhere(key: string) {
  for (let round = 0; round < 3; round++) {
    for (const process of [0, 1, 2]) await expectAccepted(process, key);
  }
}
async function revoke(process: number, id: string) {
  const reply = await http(urlOf(process)).del(`/v1/api-keys/${id}`, { bearer: ownerToken });
  expect(reply.status).toBe(200);
  return reply;
}

describe("API keys cached in every API process", () => {
  it("a key created in one process works at once in every other", async () => {
    for (const creator of [0, 1, 2]) {
      const { key } = await createApiKey(urlOf(creator), owner, `created in ${creator}`);
      await expectAccepted(creator + 1, key);
      await expectAccepted(creator + 2, key);
      await expectAccepted(creator, key);
    }
  });

  it("a revocation in one process holds for the very next request in every other, however they interleave", async () => {
    const { key: spare } = await createApiKey(urlOf(0), owner, "spare");
    for (let round = 0; round < 6; round++) {
      const { id, key } = await createApiKey(urlOf(round), owner, `revoked ${round}`);
      await useEverywhere(key);
      await revoke(round + 1, id);
      for (const process of [round + 2, round, round + 1]) await expectRevoked(process, key);
      await expectAccepted(round + 2, spare);
    }
    await useEverywhere(spare);
  });

  it("a process whose listen connection is terminated drops what it cached: a revocation reaches it at once", async () => {
    const listening = processes[2] as { listenerId: string };
    for (let round = 0; round < 3; round++) {
      const { id, key } = await createApiKey(urlOf(0), owner, `terminated ${round}`);
      await useEverywhere(key);
      const backend = await listenerBackend(stack(), listening.listenerId);
      await stack().db.execute(sql`select pg_terminate_backend(${backend}::integer)`);
      // Sent while the process may not be listening yet: its notice can be lost.
      await revoke(round, id);
      await expectRevoked(2, key);
      await nextListenerBackend(stack(), listening.listenerId, backend as number);
      await expectRevoked(2, key);
      await expectRevoked(0, key);
      await expectRevoked(1, key);
    }
  });

  it("a process whose listen connection stalls unnoticed refuses a revoked key within API_KEY_REVALIDATE_MS", async () => {
    const stalled = processes[2] as { listenerId: string };
    const { id, key } = await createApiKey(urlOf(0), owner, "stalled");
    for (const process of [0, 1]) await expectAccepted(process, key);
    const backend = (await listenerBackend(stack(), stalled.listenerId)) as number;
    // The backend stops: its connection stays open, but no notice goes out on it.
    process.kill(backend, "SIGSTOP");
    try {
      // The stalled process first meets the key now, so it asks Postgres once, between these two
      // moments, and serves it from its cache from then on: the revocation follows at once.
      const askedAfter = Date.now();
      await expectAccepted(2, key);
      const askedBefore = Date.now();
      const revokedAt = Date.now();
      await revoke(0, id);

      // The stalled process did not hear it: it serves the key from its cache, and no longer than
      // the revalidation bound allows.
      const first = await listings(2, key);
      const firstAt = Date.now();
      expect(
        firstAt - askedAfter,
        "the revocation was sent and the key used again within the revalidation bound",
      ).toBeLessThan(API_KEY_REVALIDATE_MS);
      expect(first.status, "the stalled process served the key from its cache").toBe(200);
      await expectRevoked(0, key);
      await expectRevoked(1, key);
      let refusedAt: number | undefined;
      while (refusedAt === undefined && Date.now() - revokedAt < API_KEY_REVALIDATE_MS + 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if ((await listings(2, key)).status === 401) refusedAt = Date.now();
      }
      expect(refusedAt, "the stalled process refused the key").toBeDefined();
      expect((refusedAt as number) - askedBefore).toBeLessThanOrEqual(API_KEY_REVALIDATE_MS + 500);
      await expectRevoked(2, key);
    } finally {
      process.kill(backend, "SIGCONT");
    }
  });
});
