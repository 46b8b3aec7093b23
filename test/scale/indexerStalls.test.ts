// The stack as `npm start` composes it (anvil, Postgres, Ponder under its supervisor, the API with
// its workers in-process): the chain node frozen (SIGSTOP) for 20 s three times, then Postgres three
// times. After each freeze a listing created then shows in search within 15 s, read through the API.
// While the indexer is behind, the answers read from the projections and `GET /v1/indexer` say so.
import { parseEther } from "viem";
import { beforeAll, expect, it } from "vitest";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { http, type JsonResponse, signIn } from "../support/http.ts";
import { declarativeManifest, registerAgent, settledJob, until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const FREEZE_MS = 20_000;
/** The documented bound: projections follow the chain within this of a stall's end. */
const FOLLOWS_WITHIN_MS = 15_000;
const FREEZES = 3;

const stack = useStack({ api: 1, rateLimitPerMinute: 100_000 });
const creatorAccount = devAccount(4);
let creator: ReturnType<typeof http>;
let listed = 0;

beforeAll(async () => {
  creator = http(stack().api.url, { bearer: await signIn(stack().api.url, creatorAccount) });
});

async function frozenFor(process: { kill: (signal: NodeJS.Signals) => void }, ms: number) {
  process.kill("SIGSTOP");
  try {
    await new Promise((resolve) => setTimeout(resolve, ms)); // the stall itself is what is tested
  } finally {
    process.kill("SIGCONT");
  }
}

/** Registers and lists an agent; resolves with its name and when its listing was mined. */
async function listAgent(): Promise<{ name: string; minedAt: number }> {
  const name = `stallsurvivor${listed++}`;
  const manifest = declarativeManifest(name, { title: name });
  const job = await settledJob(creator, await registerAgent(creator, manifest));
  expect(job.body.status, JSON.stringify(job.body)).toBe("completed");
  const { seed, metadata_uri } = job.body.result.create_listing;
  const market = stack().marketplace;
  await market.mined(
    market
      .as(creatorAccount)
      .write.createListing([seed, ONE_TIME, parseEther("0.001"), metadata_uri]),
  );
  return { name, minedAt: Date.now() };
}

/** The titles a search answered with (a near miss, another listing's name, is among them too). */
const titlesFound = (search: JsonResponse): string[] =>
  search.body.listings.map(({ title }: { title: string }) => title);

/** How long after it was mined the listing showed in search. */
async function shownInSearchAfter({ name, minedAt }: { name: string; minedAt: number }) {
  await until(
    `${name} in search`,
    async () => titlesFound(await creator.get(`/v1/listings?q=${name}`)).includes(name),
    FOLLOWS_WITHIN_MS + 30_000,
  );
  return Date.now() - minedAt;
}

it(`follows the chain within ${FOLLOWS_WITHIN_MS / 1000} s of each of ${FREEZES} freezes of the chain node and of Postgres`, async () => {
  const followed: Record<string, number[]> = { chain: [], postgres: [] };
  for (const dependency of ["chain", "postgres"] as const) {
    const process = dependency === "chain" ? stack().anvil : stack().postgres;
    for (let n = 0; n < FREEZES; n++) {
      await frozenFor(process, FREEZE_MS);
      followed[dependency]?.push(await shownInSearchAfter(await listAgent()));
    }
  }
  console.info(`shown in search, ms after mining: ${JSON.stringify(followed)}`);
  expect(
    Object.values(followed)
      .flat()
      .filter((ms) => ms > FOLLOWS_WITHIN_MS),
  ).toEqual([]);
}, 600_000);

it("says the projections are behind while the indexer lags, and current once it caught up", async () => {
  const caughtUp = await until("the indexer to be current", async () => {
    const lag = (await creator.get("/v1/indexer")).body;
    return lag.current === true && lag.behind_blocks === 0 && lag;
  });
  expect(caughtUp).toEqual({
    indexed_block: expect.stringMatching(/^\d+$/),
    chain_head: caughtUp.indexed_block,
    behind_blocks: 0,
    behind_seconds: 0,
    current: true,
    checked_at: expect.any(String),
  });
  const search = await creator.get("/v1/listings");
  expect(search.headers.get("x-indexed-block")).toMatch(/^\d+$/);
  expect(search.headers.get("x-indexer-behind")).toBeNull();

  stack().ponder.kill("SIGSTOP");
  try {
    const { name } = await listAgent();
    // (A Ponder that does not answer makes the projections not current before the block is seen.)
    const behind = await until("the lag of the new block to show", async () => {
      const lag = (await creator.get("/v1/indexer")).body;
      return lag.current === false && lag.behind_blocks >= 1 && lag;
    });
    expect(behind.behind_seconds).toBeGreaterThanOrEqual(3);
    const stale = await creator.get(`/v1/listings?q=${name}`);
    expect(titlesFound(stale)).not.toContain(name);
    expect(Number(stale.headers.get("x-indexer-behind"))).toBeGreaterThanOrEqual(3);
    for (const path of ["/v1/credentials", "/v1/creators/me/listings"]) {
      const answer = await creator.get(path);
      expect(answer.headers.get("x-indexer-behind"), path).toMatch(/^\d+$/);
    }
  } finally {
    stack().ponder.kill("SIGCONT");
  }
  await until(
    "the indexer to catch up",
    async () => (await creator.get("/v1/indexer")).body.current,
  );
});
