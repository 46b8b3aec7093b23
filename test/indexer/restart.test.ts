import { is, sql } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { type Hex, keccak256, parseEther, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { THIRTY_DAYS } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { projections } from "../../lib/db/projections.ts";
import type { RentalModel } from "../../lib/marketplace/vocabulary.ts";
import { createListing } from "../support/marketplaceTransactions.ts";
import { batchTransactions, type TransactionBatches } from "../support/transactionBatches.ts";
import { useStack } from "../support/useStack.ts";

const authority = devAccount(0);
const feeRecipient = devAccount(1);
const creator = (round: number) => devAccount(2 + (round % 2));
const renter = (index: number) => devAccount(4 + (index % 6));

const ONE_TIME_PRICE = parseEther("0.01");
const SUBSCRIPTION_PRICE = parseEther("0.02");
const TASK_PRICE = parseEther("0.001");

// About twenty transactions a round, two a block: over a hundred blocks, so that Ponder's 30-block
// finality matters (the killed instance leaves a finalized checkpoint, the others backfill), yet few
// enough for Ponder, whose RPC rate limit starts low, to follow live within seconds.
const ROUNDS = 11;
const KILL_AFTER_ROUND = 4;
const TRANSACTIONS_PER_BLOCK = 2;

const projectionTables = Object.values(projections).filter((value) => is(value, PgTable));

const stack = useStack({ chain: true, postgres: true, ponder: { supervised: false } });

/** Every operation of the marketplace, a round at a time on listings of the round's own. */
async function sendRounds(blocks: TransactionBatches, rounds: { from: number; to: number }) {
  const { marketplace } = stack();
  const send = blocks.send;
  for (let round = rounds.from; round < rounds.to; round++) {
    const owner = creator(round);
    const [oneTimeBuyer, subscriber, taskRenter] = [
      renter(round),
      renter(round + 1),
      renter(round + 2),
    ];
    const asOwner = marketplace.as(owner);
    const asAuthority = marketplace.as(authority);
    const listingIds: Hex[] = [];
    for (const [name, rentalModel, price] of [
      ["one-time", "one_time", ONE_TIME_PRICE],
      ["subscription", "subscription", SUBSCRIPTION_PRICE],
      ["per-task", "per_query", TASK_PRICE],
    ] as const satisfies [string, RentalModel, bigint][]) {
      const seedText = `round ${round} ${name}`;
      const { id, transaction } = createListing(marketplace, owner, {
        seedText,
        rentalModel,
        price,
      });
      await send(transaction);
      listingIds.push(id);
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
    await send(
      asTaskRenter.write.purchasePerQuery([perQueryId, TASK_PRICE], { value: 5n * TASK_PRICE }),
    );
    await send(asTaskRenter.write.topUpBalance([perQueryId, TASK_PRICE], { value: TASK_PRICE }));
    await send(
      asAuthority.write.consumeQuery([
        perQueryId,
        taskRenter.address,
        runId + 1n,
        TASK_PRICE,
        true,
      ]),
    );
    await send(
      asAuthority.write.consumeQuery([
        perQueryId,
        taskRenter.address,
        runId + 2n,
        TASK_PRICE,
        true,
      ]),
    );
    await send(
      asAuthority.write.settle([
        [],
        keccak256(toHex(`receipts of round ${round}`)),
        [
          { listingId: oneTimeId, runs: 1, failed: 0 },
          { listingId: subscriptionId, runs: 1, failed: round % 3 === 0 ? 1 : 0 },
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
    const [, , escrow] = await asOwner.read.listings([oneTimeId], { blockTag: "pending" });
    await send(asOwner.write.withdrawEarnings([oneTimeId, escrow]));
    await send(asOwner.write.closeListing([oneTimeId]));
    if (round % 3 === 2) {
      await send(marketplace.as(feeRecipient).write.withdrawFees([listingIds]));
      await send(asAuthority.write.setFeeBasisPoints([BigInt(100 + round * 10)]));
      await send(asAuthority.write.setPaused([true]));
      await send(asAuthority.write.setPaused([false]));
    }
  }
}

/** Every projection table of a deployment schema, each ordered by its primary key. */
async function snapshot(schema: string) {
  const tables: Record<string, Record<string, unknown>[]> = {};
  for (const table of projectionTables) {
    const config = getTableConfig(table);
    const primaryKey = [
      ...config.columns.filter((column) => column.primary),
      ...(config.primaryKeys[0]?.columns ?? []),
    ].map((column) => sql.identifier(column.name));
    tables[config.name] = await stack().db.execute(sql`
      select * from ${sql.identifier(schema)}.${sql.identifier(config.name)}
      order by ${sql.join(primaryKey, sql`, `)}`);
  }
  return tables;
}

async function countListings(schema: string): Promise<number> {
  const [row] = await stack().db.execute<{ count: number }>(
    sql`select count(*)::int as count from ${sql.identifier(schema)}.listing`,
  );
  return row?.count ?? 0;
}

describe("Ponder killed mid-stream", () => {
  it("recovers into tables identical to a clean re-index", { timeout: 240_000 }, async () => {
    const crashed = stack().ponder;
    const blocks = await batchTransactions(stack(), { perBlock: TRANSACTIONS_PER_BLOCK });
    await sendRounds(blocks, { from: 0, to: KILL_AFTER_ROUND + 1 });
    // Killed with most of the stream indexed and the latest blocks still to index.
    await crashed.waitForBlock((await blocks.mine()) - 10n, 60_000);
    crashed.kill("SIGKILL");
    const listingsAtKill = await countListings(crashed.schema);
    expect(listingsAtKill).toBeGreaterThan(0);
    expect(listingsAtKill).toBeLessThan(3 * ROUNDS);

    // The same schema restarts (crash recovery), which waits for the killed instance's lock to
    // expire (Ponder's 25 s heartbeat timeout); meanwhile the rest of the stream goes out, and then a
    // clean copy re-indexes all of it into schemas of its own.
    const [recovered, { clean, head }] = await Promise.all([
      stack().startIndexer({ schema: crashed.schema }),
      (async () => {
        await sendRounds(blocks, { from: KILL_AFTER_ROUND + 1, to: ROUNDS });
        const head = await blocks.end();
        return { clean: await stack().startIndexer({ viewsSchema: "marketplace_clean" }), head };
      })(),
    ]);
    await Promise.all([recovered.waitForBlock(head, 60_000), clean.waitForBlock(head, 60_000)]);

    // Both read the chain through Ponder's shared RPC cache: hold the clean copy to the contract too.
    const cleanTables = await snapshot(clean.schema);
    expect(cleanTables.listing).toHaveLength(3 * ROUNDS);
    expect(cleanTables.credential).toHaveLength(3 * ROUNDS);
    expect(cleanTables.debit_event).toHaveLength(2 * ROUNDS);
    expect(cleanTables.anchored_run_count).toHaveLength(2 * ROUNDS);
    for (const row of cleanTables.listing ?? []) {
      const id = row.id as Hex;
      const [, , escrow, accruedFees] = await stack().marketplace.as(authority).read.listings([id]);
      expect([BigInt(String(row.escrow)), BigInt(String(row.accrued_fees))]).toEqual([
        escrow,
        accruedFees,
      ]);
    }
    expect(await snapshot(recovered.schema)).toEqual(cleanTables);
  });
});
