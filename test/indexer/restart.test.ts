import { execFileSync } from "node:child_process";
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { type Hex, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectMarketplace,
  type MarketplaceConnection,
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  seedOf,
  THIRTY_DAYS,
} from "../../devStack/marketplace.ts";
import { type Deployment, deployMarketplace } from "../../lib/chain/deployMarketplace.ts";
import { devAccount, devPrivateKey } from "../../lib/chain/devAccounts.ts";
import { projections } from "../../lib/db/projections.ts";
import { startTestAnvil, startTestPonder, startTestPostgres } from "../harness/harness.ts";

const authority = devAccount(0);
const feeRecipient = devAccount(1);
const creator = (round: number) => devAccount(2 + (round % 2));
const renter = (index: number) => devAccount(4 + (index % 6));

const ONE_TIME_PRICE = parseEther("0.01");
const SUBSCRIPTION_PRICE = parseEther("0.02");
const TASK_PRICE = parseEther("0.001");

// About twenty transactions, one block each, per round. Ponder indexes a local chain live at a few
// blocks a second (its RPC rate limit starts low), so a few hundred blocks keep the file within minutes.
const ROUNDS = 11;
const KILL_AFTER_ROUND = 4;

const projectionTables = Object.values(projections).filter((value) => is(value, PgTable));

const started: { stop: () => Promise<void> }[] = [];
let rpcUrl: string;
let databaseUrl: string;
let deployment: Deployment;
let marketplace: MarketplaceConnection;
let sql: postgres.Sql;

beforeAll(async () => {
  const anvil = await startTestAnvil();
  started.push(anvil);
  rpcUrl = anvil.rpcUrl;
  const pg = await startTestPostgres();
  started.push(pg);
  databaseUrl = pg.databaseUrl;
  deployment = await deployMarketplace({
    rpcUrl,
    deployerKey: devPrivateKey(0),
    authority: authority.address,
    feeRecipient: feeRecipient.address,
  });
  marketplace = connectMarketplace(rpcUrl, deployment.address);
  sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  started.push({ stop: () => sql.end() });
});

afterAll(async () => {
  for (const service of started.reverse()) await service.stop().catch(() => {});
});

/** The latest block number; viem would otherwise answer from a cache a few seconds old. */
const chainHead = () => marketplace.publicClient.getBlockNumber({ cacheTime: 0 });

async function startPonder(options: { schema?: string; viewsSchema?: string } = {}) {
  const ponder = await startTestPonder({ rpcUrl, databaseUrl, deployment, ...options });
  started.push(ponder);
  return ponder;
}

/** SIGKILLs the Ponder indexing into `schema` with its whole process group: no shutdown, no unlock. */
function killPonder(schema: string) {
  const pid = Number(
    execFileSync("pgrep", ["-f", `ponder.js start --schema ${schema} `], { encoding: "utf8" }),
  );
  process.kill(-pid, "SIGKILL");
}

/** Every operation of the marketplace, a round at a time on listings of the round's own. */
async function sendRounds(afterRound: (round: number) => Promise<void>) {
  const send = marketplace.mined;
  for (let round = 0; round < ROUNDS; round++) {
    const owner = creator(round);
    const [oneTimeBuyer, subscriber, taskRenter] = [
      renter(round),
      renter(round + 1),
      renter(round + 2),
    ];
    const asOwner = marketplace.as(owner);
    const asAuthority = marketplace.as(authority);
    const listingIds: Hex[] = [];
    for (const [name, model, price] of [
      ["one-time", ONE_TIME, ONE_TIME_PRICE],
      ["subscription", SUBSCRIPTION, SUBSCRIPTION_PRICE],
      ["per-task", PER_QUERY, TASK_PRICE],
    ] as const) {
      const seed = seedOf(`round ${round} ${name}`);
      await send(asOwner.write.createListing([seed, model, price, METADATA_URI]));
      listingIds.push(await asOwner.read.deriveListingId([owner.address, seed]));
    }
    const [oneTimeId, subscriptionId, perQueryId] = listingIds as [Hex, Hex, Hex];
    const runId = BigInt(round * 10);

    await send(
      marketplace.as(oneTimeBuyer).write.purchaseOneTime([oneTimeId], { value: ONE_TIME_PRICE }),
    );
    const asSubscriber = marketplace.as(subscriber);
    await send(
      asSubscriber.write.purchaseSubscription([subscriptionId, THIRTY_DAYS], {
        value: SUBSCRIPTION_PRICE,
      }),
    );
    await send(
      asSubscriber.write.renewSubscription([subscriptionId, 3n * THIRTY_DAYS], {
        value: 3n * SUBSCRIPTION_PRICE,
      }),
    );
    const asTaskRenter = marketplace.as(taskRenter);
    await send(asTaskRenter.write.purchasePerQuery([perQueryId], { value: 5n * TASK_PRICE }));
    await send(asTaskRenter.write.topUpBalance([perQueryId], { value: TASK_PRICE }));
    await send(asAuthority.write.consumeQuery([perQueryId, taskRenter.address, runId + 1n]));
    await send(asAuthority.write.consumeQuery([perQueryId, taskRenter.address, runId + 2n]));
    await send(
      asAuthority.write.recordRuns([
        [
          { listingId: oneTimeId, runId: runId + 3n, succeeded: true },
          { listingId: subscriptionId, runId: runId + 4n, succeeded: round % 3 !== 0 },
        ],
      ]),
    );
    await send(
      asOwner.write.updateListing([subscriptionId, SUBSCRIPTION_PRICE + BigInt(round), "ipfs://x"]),
    );
    await send(asOwner.write.setListingActive([perQueryId, false]));
    await send(asOwner.write.revokeAccess([oneTimeId, oneTimeBuyer.address]));
    await send(asOwner.write.revokePerQueryAccess([perQueryId, taskRenter.address]));
    await send(asTaskRenter.write.reclaimBalance([perQueryId]));
    const [, , escrow] = await asOwner.read.listings([oneTimeId]);
    await send(asOwner.write.withdrawEarnings([oneTimeId, escrow]));
    await send(asOwner.write.closeListing([oneTimeId]));
    if (round % 3 === 2) {
      await send(marketplace.as(feeRecipient).write.withdrawFees([listingIds]));
      await send(asAuthority.write.setFeeBasisPoints([BigInt(100 + round * 10)]));
      await send(asAuthority.write.setPaused([true]));
      await send(asAuthority.write.setPaused([false]));
    }
    await afterRound(round);
  }
}

/** Every projection table of a deployment schema, each ordered by its primary key. */
async function snapshot(schema: string) {
  const tables: Record<string, postgres.Row[]> = {};
  for (const table of projectionTables) {
    const config = getTableConfig(table);
    const primaryKey = [
      ...config.columns.filter((column) => column.primary),
      ...(config.primaryKeys[0]?.columns ?? []),
    ].map((column) => column.name);
    tables[config.name] = await sql`
      select * from ${sql(schema)}.${sql(config.name)} order by ${sql(primaryKey)}`;
  }
  return tables;
}

describe("Ponder killed mid-stream", () => {
  it("recovers into tables identical to a clean re-index", { timeout: 240_000 }, async () => {
    const crashed = await startPonder();
    let listingsAtKill = 0;
    await sendRounds(async (round) => {
      if (round !== KILL_AFTER_ROUND) return;
      // Killed with most of the stream indexed and the latest blocks still to index.
      const sent = await chainHead();
      await crashed.waitForBlock(sent - 20n, 60_000);
      killPonder(crashed.schema);
      [{ count: listingsAtKill }] = await sql<[{ count: number }]>`
        select count(*)::int as count from ${sql(crashed.schema)}.listing`;
    });
    expect(listingsAtKill).toBeGreaterThan(0);
    expect(listingsAtKill).toBeLessThan(3 * ROUNDS);
    const head = await chainHead();

    // Same schema: crash recovery, once the killed instance's lock expires (Ponder's 25 s heartbeat
    // timeout). The clean copy starts after it, so it reads the chain from Ponder's RPC cache.
    const recovered = await startPonder({ schema: crashed.schema });
    await recovered.waitForBlock(head, 60_000);
    const clean = await startPonder({ viewsSchema: "marketplace_clean" });
    await clean.waitForBlock(head, 60_000);

    // Both read the chain through Ponder's shared RPC cache: hold the clean copy to the contract too.
    const cleanTables = await snapshot(clean.schema);
    expect(cleanTables.listing).toHaveLength(3 * ROUNDS);
    expect(cleanTables.credential).toHaveLength(3 * ROUNDS);
    expect(cleanTables.debit_event).toHaveLength(2 * ROUNDS);
    for (const row of cleanTables.listing ?? []) {
      const [, , escrow, accruedFees] = await marketplace.as(authority).read.listings([row.id]);
      expect([BigInt(row.escrow), BigInt(row.accrued_fees)]).toEqual([escrow, accruedFees]);
    }
    expect(await snapshot(recovered.schema)).toEqual(cleanTables);
  });
});
