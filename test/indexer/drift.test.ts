// Zero drift: after a seeded random workload (driftWorkload.ts), every projection equals what the
// contract returns for the same block, and the workload's model supplies what the chain cannot answer
// (totals, counters).
import { beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { projections } from "../../lib/db/projections.ts";
import {
  listingStatusName,
  RENTAL_MODELS,
  rentalModelName,
} from "../../lib/marketplace/vocabulary.ts";
import { lower } from "../support/projectionRows.ts";
import { batchTransactions } from "../support/transactionBatches.ts";
import { useStack } from "../support/useStack.ts";
import {
  createWorkload,
  creators,
  fundWorkloadAccounts,
  renters,
  type Workload,
} from "./driftWorkload.ts";

const WORKLOAD_SEED = 0x5eed_2024;
const MIN_TRANSACTIONS = 320;
/** As on a busy chain; one a block would leave Ponder fetching blocks one by one, rate-limited. */
const TRANSACTIONS_PER_BLOCK = 20;

// Ponder indexes while the workload runs, as in production, rather than backfilling it afterwards.
const stack = useStack({ chain: true, postgres: true, ponder: true });
let workload: Workload;
let atLastBlock: { blockNumber: bigint };
const sentOperations = new Map<string, number>();

beforeAll(async () => {
  workload = createWorkload(stack().marketplace, WORKLOAD_SEED);
  await fundWorkloadAccounts(stack().anvil.rpcUrl);
  const blocks = await batchTransactions(stack(), { perBlock: TRANSACTIONS_PER_BLOCK });
  for (let sent = 0; sent < MIN_TRANSACTIONS; sent++) {
    const name = await workload.step(blocks, stack().anvil.rpcUrl);
    sentOperations.set(name, (sentOperations.get(name) ?? 0) + 1);
  }
  const lastBlock = await blocks.end();
  atLastBlock = { blockNumber: lastBlock };
  await stack().ponder.waitForBlock(lastBlock, 180_000);
}, 300_000);

/** The contract's own answers (any account reads them), as of the workload's last block. */
const contract = () => stack().marketplace.as(devAccount(0)).read;

const byId = <T extends { id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.id.localeCompare(b.id));
const byPair = <T extends { listingId: string; buyer: string }>(rows: T[]) =>
  [...rows].sort((a, b) => `${a.listingId}${a.buyer}`.localeCompare(`${b.listingId}${b.buyer}`));

function readProjections() {
  const { db } = stack();
  return {
    listings: () => db.select().from(projections.listing),
    credentials: () => db.select().from(projections.credential),
    creators: () => db.select().from(projections.creator),
    protocol: () => db.select().from(projections.protocol),
  };
}

describe("projections after a seeded random workload", () => {
  it("ran at least 300 successful transactions covering every operation", () => {
    const total = [...sentOperations.values()].reduce((sum, count) => sum + count, 0);
    expect(total).toBeGreaterThanOrEqual(300);
    expect([...sentOperations.keys()].sort()).toEqual(
      workload.operations.map((operation) => operation.name).sort(),
    );
    const models = new Set(workload.listings.map((listing) => listing.rentalModel));
    expect(models).toEqual(new Set(RENTAL_MODELS));
    expect(new Set(workload.allCredentials().map(({ credential }) => credential.renter)).size).toBe(
      renters.length,
    );
    expect(workload.timeJumps()).toBeGreaterThan(0);
  });

  it("holds exactly the listings and credentials the workload created", async () => {
    const read = readProjections();
    const listingIds = (await read.listings()).map((row) => row.id).sort();
    const pairs = (await read.credentials()).map((row) => `${row.listingId}/${row.buyer}`).sort();

    expect(listingIds).toEqual(workload.listings.map((listing) => listing.id).sort());
    expect(pairs).toEqual(
      workload
        .allCredentials()
        .map(({ listing, credential }) => `${listing.id}/${lower(credential.renter.address)}`)
        .sort(),
    );
  });

  it("matches every listing the contract returns for the same block, field by field", async () => {
    const onChain = await Promise.all(
      byId(workload.listings).map(async ({ id }) => {
        const [creator, price, escrow, accruedFees, model, status] = await contract().listings(
          [id],
          atLastBlock,
        );
        return {
          id,
          creator: lower(creator),
          price,
          escrow,
          accruedFees,
          rentalModel: rentalModelName(model),
          status: listingStatusName(status),
        };
      }),
    );
    // Field by field for the fields the contract holds; the totals are checked below.
    expect(byId(await readProjections().listings())).toMatchObject(onChain);
  });

  it("matches every credential the contract returns for the same block, field by field", async () => {
    const onChain = await Promise.all(
      workload.allCredentials().map(async ({ listing, credential }) => {
        const key = [listing.id, credential.renter.address] as const;
        const readState = async () => {
          if (listing.rentalModel === "per_query") {
            const [balance, agreedPrice, purchasedAt, isRevoked] =
              await contract().perQueryBalances(key, atLastBlock);
            return { purchasedAt, expiresAt: null, isRevoked, balance, agreedPrice };
          }
          const [, purchasedAt, expiresAt, isRevoked] = await contract().credentials(
            key,
            atLastBlock,
          );
          // The contract stores 0 for "never expires"; the projection says null.
          const neverExpires = expiresAt === 0;
          return {
            purchasedAt,
            expiresAt: neverExpires ? null : BigInt(expiresAt),
            isRevoked,
            balance: 0n,
            agreedPrice: 0n,
          };
        };
        const { purchasedAt, ...state } = await readState();
        return {
          listingId: listing.id,
          buyer: lower(credential.renter.address),
          rentalModel: listing.rentalModel,
          purchasedAt: BigInt(purchasedAt),
          ...state,
        };
      }),
    );
    expect(byPair(await readProjections().credentials())).toMatchObject(byPair(onChain));
  });

  it("keeps listing, credential, creator and protocol totals equal to the workload's sums", async () => {
    const read = readProjections();
    expect(byId(await read.listings())).toMatchObject(
      byId(workload.listings).map((listing) => ({
        id: listing.id,
        metadataUri: listing.metadataUri,
        totalEarned: listing.totalEarned,
        totalWithdrawn: listing.totalWithdrawn,
        credentialCount: listing.credentials.size,
        runCount: listing.runCount,
        failedRunCount: listing.failedRunCount,
      })),
    );
    expect(byPair(await read.credentials())).toMatchObject(
      byPair(
        workload.allCredentials().map(({ listing, credential }) => ({
          listingId: listing.id,
          buyer: lower(credential.renter.address),
          totalPaid: credential.totalPaid,
          tasksConsumed: credential.tasksConsumed,
        })),
      ),
    );

    const creatorTotals = byId(await read.creators());
    expect(creatorTotals).toEqual(
      byId(
        creators.flatMap((creator) => {
          const own = workload.listings.filter((listing) => listing.creator === creator);
          if (own.length === 0) return [];
          return {
            id: lower(creator.address),
            listingCount: own.length,
            totalEarned: own.reduce((sum, listing) => sum + listing.totalEarned, 0n),
            totalWithdrawn: own.reduce((sum, listing) => sum + listing.totalWithdrawn, 0n),
          };
        }),
      ),
    );

    const [authority, operator, feeRecipient, feeBasisPoints, paused] = await Promise.all([
      contract().authority(atLastBlock),
      contract().operator(atLastBlock),
      contract().feeRecipient(atLastBlock),
      contract().feeBasisPoints(atLastBlock),
      contract().paused(atLastBlock),
    ]);
    expect(await read.protocol()).toEqual([
      {
        id: lower(stack().deployment.address),
        authority: lower(authority),
        operator: lower(operator),
        feeRecipient: lower(feeRecipient),
        feeBasisPoints: Number(feeBasisPoints),
        paused,
        totalFees: workload.protocol.totalFees,
        totalFeesWithdrawn: workload.protocol.totalFeesWithdrawn,
      },
    ]);
  });
});
