// Registering is free, so one wallet's share of the queue and of the agents table is bounded, and an
// agent never listed expires: on the real stack (NATS, a worker process, Ponder, the chain).
import { eq, inArray, sql } from "drizzle-orm";
import { type Hex, parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import type { Worker } from "../../devStack/startWorker.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { agentSecrets, agents, agentVersions } from "../../lib/db/appSchema.ts";
import { ENV_FIELDS } from "../../lib/env.ts";
import { UNLISTED_AGENT_EXPIRY_DAYS } from "../../lib/jobs/registrationQuota.ts";
import { expireUnlistedAgents } from "../../workers/registration/expireUnlistedAgents.ts";
import { listedOnChain } from "../../workers/registration/listedOnChain.ts";
import { expectError, http, signIn } from "../support/http.ts";
import {
  declarativeManifest,
  registerAgent,
  settledJob,
  until,
  whilePaused,
} from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

/** The quotas' defaults, which the stack raises for other tests. */
const MAX_PENDING_JOBS_PER_WALLET = ENV_FIELDS.REGISTRATIONS_QUEUED_PER_WALLET.parse(undefined);
const MAX_UNLISTED_AGENTS_PER_WALLET = ENV_FIELDS.UNLISTED_AGENTS_PER_WALLET.parse(undefined);
const stack = useStack({
  nats: true,
  api: 1,
  workers: 1,
  rateLimitPerMinute: 100_000,
  env: {
    REGISTRATIONS_QUEUED_PER_WALLET: String(MAX_PENDING_JOBS_PER_WALLET),
    UNLISTED_AGENTS_PER_WALLET: String(MAX_UNLISTED_AGENTS_PER_WALLET),
  },
});
const creatorAccount = devAccount(4);
const otherAccount = devAccount(5);
let creator: ReturnType<typeof http>;
let other: ReturnType<typeof http>;
let registered = 0;

beforeAll(async () => {
  const url = stack().api.url;
  creator = http(url, { bearer: await signIn(url, creatorAccount) });
  other = http(url, { bearer: await signIn(url, otherAccount) });
});

/** Registers an agent through the worker; resolves with its registration's listing facts. */
async function registerThroughWorker(client: ReturnType<typeof http>) {
  const name = `quota${registered++}`;
  const job = await settledJob(client, await registerAgent(client, declarativeManifest(name)));
  expect(job.body.status, JSON.stringify(job.body)).toBe("completed");
  return job.body.result as {
    listing_id: string;
    create_listing: { seed: Hex; metadata_uri: string };
  };
}

const onChainIdOf = async (listingId: string) => {
  const [row] = await stack()
    .db.select({ id: agents.onChainListingId })
    .from(agents)
    .where(eq(agents.onChainListingId, `0x${listingId.slice(4)}`));
  return row?.id as Hex;
};

/** Makes the agent look registered `days` days ago. */
const registeredDaysAgo = (onChainId: string, days: number) =>
  stack()
    .db.update(agents)
    .set({ createdAt: sql`now() - make_interval(days => ${days})` })
    .where(eq(agents.onChainListingId, onChainId));

async function rowsOf(onChainId: string) {
  const db = stack().db;
  const where = <T extends { onChainListingId: unknown }>(table: T) =>
    inArray(table.onChainListingId as never, [onChainId]);
  return {
    agents: (await db.select().from(agents).where(where(agents))).length,
    versions: (await db.select().from(agentVersions).where(where(agentVersions))).length,
    secrets: (await db.select().from(agentSecrets).where(where(agentSecrets))).length,
  };
}

describe("finding M-6: free, unlimited registrations", () => {
  it(`refuses a wallet's registration past ${MAX_PENDING_JOBS_PER_WALLET} queued, 429 with Retry-After, and no one else's`, async () => {
    await whilePaused(stack().workers[0] as Worker, async () => {
      const queued = await Promise.all(
        Array.from({ length: MAX_PENDING_JOBS_PER_WALLET + 3 }, (_, n) =>
          creator.post("/v1/agents", declarativeManifest(`queued${n}`)),
        ),
      );
      expect(queued.filter((reply) => reply.status === 202)).toHaveLength(
        MAX_PENDING_JOBS_PER_WALLET,
      );
      for (const refused of queued.filter((reply) => reply.status !== 202)) {
        expectError(refused, 429, "rate_limit_exceeded");
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      // Another wallet's registrations queue as before.
      expect((await other.post("/v1/agents", declarativeManifest("elsewhere"))).status).toBe(202);
    });
    // Once they are processed, the wallet registers again.
    await until("the queue to drain", async () => {
      const reply = await creator.post("/v1/agents", declarativeManifest("after"));
      return reply.status === 202;
    });
  });

  it(`refuses a new agent past ${MAX_UNLISTED_AGENTS_PER_WALLET} registered and never listed`, async () => {
    const wallet = devAccount(6);
    const client = http(stack().api.url, { bearer: await signIn(stack().api.url, wallet) });
    // The agents a wallet registered earlier, as the worker writes them.
    const [template] = await stack().db.select().from(agents).limit(1);
    if (!template) throw new Error("no agent registered yet");
    await stack()
      .db.insert(agents)
      .values(
        Array.from({ length: MAX_UNLISTED_AGENTS_PER_WALLET - 1 }, (_, n) => ({
          ...template,
          agentId: `agt_unlisted${n}`,
          onChainListingId: `0x${n.toString(16).padStart(64, "e")}`,
          creator: wallet.address.toLowerCase(),
        })),
      );
    // The last place: taken by a registration, queued or done.
    await registerThroughWorker(client);
    const refused = await client.post("/v1/agents", declarativeManifest("onetoomany"));
    expectError(refused, 429, "rate_limit_exceeded");
    expect(refused.body.error.message).toContain("never listed");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it(`expires an agent never listed after ${UNLISTED_AGENT_EXPIRY_DAYS} days, and never one listed on-chain`, async () => {
    const chain = { rpcUrl: stack().anvil.rpcUrl, deployment: stack().deployment };
    const expire = () =>
      expireUnlistedAgents({ db: stack().db, listedOnChain: listedOnChain(chain) });

    const fresh = await onChainIdOf((await registerThroughWorker(creator)).listing_id);
    const old = await onChainIdOf((await registerThroughWorker(creator)).listing_id);
    await registeredDaysAgo(old, UNLISTED_AGENT_EXPIRY_DAYS + 1);
    // Listed on-chain while the indexer is frozen: the projections do not show it yet.
    const listedResult = await registerThroughWorker(creator);
    const listed = await onChainIdOf(listedResult.listing_id);
    await registeredDaysAgo(listed, UNLISTED_AGENT_EXPIRY_DAYS + 1);
    const ponder = stack().ponder;
    ponder.kill("SIGSTOP");
    try {
      const market = stack().marketplace;
      const { seed, metadata_uri } = listedResult.create_listing;
      await market.mined(
        market
          .as(creatorAccount)
          .write.createListing([seed, ONE_TIME, parseEther("0.001"), metadata_uri]),
      );
      expect(await expire()).toEqual([old]);
    } finally {
      ponder.kill("SIGCONT");
    }
    expect(await rowsOf(old)).toEqual({ agents: 0, versions: 0, secrets: 0 });
    expect((await rowsOf(listed)).agents).toBe(1);
    expect((await rowsOf(fresh)).agents).toBe(1);
  });
});
