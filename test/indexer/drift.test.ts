// Zero drift: after a seeded random workload, every projection equals what the contract returns for
// the same block. The workload keeps a model of the contract so it only sends transactions that succeed,
// and the model supplies what the chain cannot answer (totals, counters).
import { type Address, getContract, type Hex, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectMarketplace,
  type MarketplaceConnection,
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  seedOf,
} from "../../devStack/marketplace.ts";
import { type Anvil, rpcRequest } from "../../devStack/startAnvil.ts";
import type { Postgres } from "../../devStack/startPostgres.ts";
import { type Deployment, deployMarketplace } from "../../lib/chain/deployMarketplace.ts";
import { devAccount, devPrivateKey } from "../../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { connectProjections, projections } from "../../lib/db/projections.ts";
import { deriveListingId } from "../../lib/ids/listingId.ts";
import {
  startTestAnvil,
  startTestPonder,
  startTestPostgres,
  type TestPonder,
} from "../harness/harness.ts";

const WORKLOAD_SEED = 0x5eed_2024;
const MIN_TRANSACTIONS = 320;
const MIN_PRICE = parseEther("0.000001");
const DAY = 24n * 60n * 60n;
const SUBSCRIPTION_PERIOD = 30n * DAY;
const DURATIONS = [SUBSCRIPTION_PERIOD, 90n * DAY, 365n * DAY];
const UNLISTED_ID = seedOf("a listing nobody created");
const RENTAL_MODELS = ["one_time", "subscription", "per_query"] as const;
const LISTING_STATUSES = [undefined, "active", "paused", "closed"] as const;

const creators = [2, 3, 4].map(devAccount);
const renters = [5, 6, 7, 8, 9].map(devAccount);
// Authority and fee recipient are handed back and forth between these two during the workload.
const [protocolAccountA, protocolAccountB] = [devAccount(0), devAccount(1)] as const;

type Status = "active" | "paused" | "closed";

type CredentialState = {
  renter: HDAccount;
  isRevoked: boolean;
  balance: bigint;
  totalPaid: bigint;
  tasksConsumed: number;
};

type ListingState = {
  id: Hex;
  creator: HDAccount;
  rentalModel: number;
  price: bigint;
  metadataUri: string;
  status: Status;
  escrow: bigint;
  accruedFees: bigint;
  totalEarned: bigint;
  totalWithdrawn: bigint;
  runCount: number;
  failedRunCount: number;
  credentials: Map<Address, CredentialState>;
};

/** A valid transaction for the current state, and what it does to the model once mined. */
type Planned = { send: () => Promise<Hex>; apply: () => void };
type Operation = { name: string; weight: number; plan: () => Planned | undefined };

/** mulberry32: a tiny seeded PRNG, so a failing workload can be replayed exactly. */
function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (maxExclusive: number) => Math.floor(next() * maxExclusive);
  const pick = <T>(items: readonly T[]): T | undefined => items[int(items.length)];
  return {
    int,
    pick,
    chance: (probability: number) => next() < probability,
    /** A uniform bigint in [min, max]. */
    bigint: (min: bigint, max: bigint) =>
      min + (BigInt(int(2 ** 30)) * (max - min + 1n)) / 2n ** 30n,
    weighted: <T extends { weight: number }>(items: readonly T[]): T => {
      let ticket = next() * items.reduce((sum, item) => sum + item.weight, 0);
      for (const item of items) {
        ticket -= item.weight;
        if (ticket < 0) return item;
      }
      return items[items.length - 1] as T;
    },
  };
}

/** The workload: a model of the marketplace and the operations that keep it in step with the chain. */
function createWorkload(
  marketplace: MarketplaceConnection,
  random: ReturnType<typeof seededRandom>,
) {
  const listings: ListingState[] = [];
  const protocol = {
    authority: protocolAccountA,
    feeRecipient: protocolAccountB,
    feeBasisPoints: 250n,
    paused: false,
    totalFees: 0n,
    totalFeesWithdrawn: 0n,
  };
  const settledRunIds: bigint[] = [];
  let nextRunId = 1n;
  let listingsCreated = 0;
  let timeJumps = 0;

  const market = (account: HDAccount) => marketplace.as(account).write;
  const randomPrice = () => random.bigint(MIN_PRICE, parseEther("0.01"));
  const openListings = () => listings.filter((listing) => listing.status !== "closed");
  const forSale = (model: number) =>
    protocol.paused
      ? []
      : listings.filter((listing) => listing.status === "active" && listing.rentalModel === model);
  const allCredentials = () =>
    listings.flatMap((listing) =>
      [...listing.credentials.values()].map((credential) => ({ listing, credential })),
    );
  const credentialsOf = (model: number) =>
    allCredentials().filter(({ listing }) => listing.rentalModel === model);

  /** Books a sale as `_collect` does: the fee at the current rate, the rest into escrow. */
  function collect(listing: ListingState, amount: bigint) {
    const fee = (amount * protocol.feeBasisPoints) / 10_000n;
    listing.accruedFees += fee;
    listing.escrow += amount - fee;
    listing.totalEarned += amount - fee;
    protocol.totalFees += fee;
  }

  function newCredential(listing: ListingState, renter: HDAccount, totalPaid: bigint) {
    const credential = { renter, isRevoked: false, balance: 0n, totalPaid, tasksConsumed: 0 };
    listing.credentials.set(renter.address, credential);
    return credential;
  }

  /** A listing of `model` open for sale and a renter who holds no credential for it yet. */
  function newRental(model: number) {
    const listing = random.pick(forSale(model));
    const renter = random.pick(
      renters.filter((r) => listing && !listing.credentials.has(r.address)),
    );
    return listing && renter ? { listing, renter } : undefined;
  }

  const operations: Operation[] = [
    {
      name: "createListing",
      weight: 3,
      plan: () => {
        if (protocol.paused) return undefined;
        const creator = random.pick(creators) as HDAccount;
        const seed = seedOf(`drift listing ${listingsCreated++}`);
        const rentalModel = random.int(3);
        const price = randomPrice();
        return {
          send: () => market(creator).createListing([seed, rentalModel, price, METADATA_URI]),
          apply: () =>
            listings.push({
              id: deriveListingId(creator.address, seed),
              creator,
              rentalModel,
              price,
              metadataUri: METADATA_URI,
              status: "active",
              escrow: 0n,
              accruedFees: 0n,
              totalEarned: 0n,
              totalWithdrawn: 0n,
              runCount: 0,
              failedRunCount: 0,
              credentials: new Map(),
            }),
        };
      },
    },
    {
      name: "updateListing",
      weight: 2,
      plan: () => {
        const listing = random.pick(openListings());
        if (!listing) return undefined;
        const price = randomPrice();
        const metadataUri = `${METADATA_URI}#v${random.int(1_000_000)}`;
        return {
          send: () => market(listing.creator).updateListing([listing.id, price, metadataUri]),
          apply: () => Object.assign(listing, { price, metadataUri }),
        };
      },
    },
    {
      name: "pauseOrReactivateListing",
      weight: 2,
      plan: () => {
        const listing = random.pick(openListings());
        if (!listing) return undefined;
        const active = listing.status === "paused";
        return {
          send: () => market(listing.creator).setListingActive([listing.id, active]),
          apply: () => {
            listing.status = active ? "active" : "paused";
          },
        };
      },
    },
    {
      name: "closeListing",
      weight: 1,
      plan: () => {
        const listing = random.pick(openListings().filter((l) => l.escrow === 0n));
        if (!listing) return undefined;
        return {
          send: () => market(listing.creator).closeListing([listing.id]),
          apply: () => {
            listing.status = "closed";
          },
        };
      },
    },
    {
      name: "purchaseOneTime",
      weight: 4,
      plan: () => {
        const rental = newRental(ONE_TIME);
        if (!rental) return undefined;
        const { listing, renter } = rental;
        const price = listing.price;
        return {
          send: () => market(renter).purchaseOneTime([listing.id], { value: price }),
          apply: () => {
            newCredential(listing, renter, price);
            collect(listing, price);
          },
        };
      },
    },
    {
      name: "purchaseSubscription",
      weight: 4,
      plan: () => {
        const rental = newRental(SUBSCRIPTION);
        if (!rental) return undefined;
        const { listing, renter } = rental;
        const duration = random.pick(DURATIONS) as bigint;
        const quote = (listing.price * duration) / SUBSCRIPTION_PERIOD;
        return {
          send: () => market(renter).purchaseSubscription([listing.id, duration], { value: quote }),
          apply: () => {
            newCredential(listing, renter, quote);
            collect(listing, quote);
          },
        };
      },
    },
    {
      name: "purchasePerQuery",
      weight: 4,
      plan: () => {
        const rental = newRental(PER_QUERY);
        if (!rental) return undefined;
        const { listing, renter } = rental;
        const deposit = listing.price * BigInt(1 + random.int(6)) + random.bigint(0n, MIN_PRICE);
        return {
          send: () => market(renter).purchasePerQuery([listing.id], { value: deposit }),
          apply: () => {
            newCredential(listing, renter, deposit).balance = deposit;
          },
        };
      },
    },
    {
      name: "renewSubscription",
      weight: 3,
      plan: () => {
        const renewal = random.pick(
          credentialsOf(SUBSCRIPTION).filter(
            ({ listing, credential }) =>
              !protocol.paused && listing.status === "active" && !credential.isRevoked,
          ),
        );
        if (!renewal) return undefined;
        const { listing, credential } = renewal;
        const duration = random.pick(DURATIONS) as bigint;
        const quote = (listing.price * duration) / SUBSCRIPTION_PERIOD;
        return {
          send: () =>
            market(credential.renter).renewSubscription([listing.id, duration], { value: quote }),
          apply: () => {
            credential.totalPaid += quote;
            collect(listing, quote);
          },
        };
      },
    },
    {
      name: "topUpBalance",
      weight: 3,
      plan: () => {
        const topUp = random.pick(
          credentialsOf(PER_QUERY).filter(
            ({ listing, credential }) =>
              !protocol.paused && listing.status === "active" && !credential.isRevoked,
          ),
        );
        if (!topUp) return undefined;
        const { listing, credential } = topUp;
        const amount = listing.price * BigInt(1 + random.int(4)) + random.bigint(0n, MIN_PRICE);
        return {
          send: () => market(credential.renter).topUpBalance([listing.id], { value: amount }),
          apply: () => {
            credential.balance += amount;
            credential.totalPaid += amount;
          },
        };
      },
    },
    {
      name: "consumeQuery",
      weight: 8,
      plan: () => {
        const debit = random.pick(
          credentialsOf(PER_QUERY).filter(
            ({ listing, credential }) =>
              !protocol.paused &&
              listing.status !== "closed" &&
              !credential.isRevoked &&
              credential.balance >= listing.price,
          ),
        );
        if (!debit) return undefined;
        const { listing, credential } = debit;
        const runId = nextRunId++;
        return {
          send: () =>
            market(protocol.authority).consumeQuery([listing.id, credential.renter.address, runId]),
          apply: () => {
            credential.balance -= listing.price;
            credential.tasksConsumed += 1;
            listing.runCount += 1;
            settledRunIds.push(runId);
            collect(listing, listing.price);
          },
        };
      },
    },
    {
      name: "recordRuns",
      weight: 3,
      plan: () => {
        if (listings.length === 0) return undefined;
        const runs = Array.from({ length: 1 + random.int(3) }, () => ({
          listing: random.pick(listings) as ListingState,
          runId: nextRunId++,
          succeeded: random.chance(0.7),
        }));
        // A run id settled before is skipped by the contract and must not be counted again.
        const replayed = random.pick(settledRunIds);
        const replays = replayed === undefined || random.chance(0.5) ? [] : [replayed];
        // The contract logs runs against any id, even one without a listing, which must not appear.
        const strayRunIds = random.chance(0.2) ? [nextRunId++] : [];
        const records = [
          ...runs.map(({ listing, runId, succeeded }) => ({
            listingId: listing.id,
            runId,
            succeeded,
          })),
          ...replays.map((runId) => ({
            listingId: (random.pick(listings) as ListingState).id,
            runId,
            succeeded: true,
          })),
          ...strayRunIds.map((runId) => ({ listingId: UNLISTED_ID, runId, succeeded: false })),
        ];
        return {
          send: () => market(protocol.authority).recordRuns([records]),
          apply: () => {
            for (const { listing, runId, succeeded } of runs) {
              listing.runCount += 1;
              if (!succeeded) listing.failedRunCount += 1;
              settledRunIds.push(runId);
            }
            settledRunIds.push(...strayRunIds);
          },
        };
      },
    },
    {
      name: "revokeAccess",
      weight: 1,
      plan: () => {
        const revocation = random.pick(
          [...credentialsOf(ONE_TIME), ...credentialsOf(SUBSCRIPTION)].filter(
            ({ credential }) => !credential.isRevoked,
          ),
        );
        if (!revocation) return undefined;
        const { listing, credential } = revocation;
        return {
          send: () => market(listing.creator).revokeAccess([listing.id, credential.renter.address]),
          apply: () => {
            credential.isRevoked = true;
          },
        };
      },
    },
    {
      name: "revokePerQueryAccess",
      weight: 1,
      plan: () => {
        const revocation = random.pick(
          credentialsOf(PER_QUERY).filter(({ credential }) => !credential.isRevoked),
        );
        if (!revocation) return undefined;
        const { listing, credential } = revocation;
        return {
          send: () =>
            market(listing.creator).revokePerQueryAccess([listing.id, credential.renter.address]),
          apply: () => {
            credential.isRevoked = true;
          },
        };
      },
    },
    {
      name: "reclaimBalance",
      weight: 2,
      plan: () => {
        const reclaim = random.pick(
          credentialsOf(PER_QUERY).filter(
            ({ listing, credential }) =>
              (credential.isRevoked || listing.status === "closed") && credential.balance > 0n,
          ),
        );
        if (!reclaim) return undefined;
        const { listing, credential } = reclaim;
        return {
          send: () => market(credential.renter).reclaimBalance([listing.id]),
          apply: () => {
            credential.balance = 0n;
          },
        };
      },
    },
    {
      name: "withdrawEarnings",
      weight: 3,
      plan: () => {
        const listing = random.pick(listings.filter((l) => l.escrow > 0n));
        if (!listing) return undefined;
        // Often all of it, so listings can be closed afterwards.
        const amount = random.chance(0.5) ? listing.escrow : random.bigint(1n, listing.escrow);
        return {
          send: () => market(listing.creator).withdrawEarnings([listing.id, amount]),
          apply: () => {
            listing.escrow -= amount;
            listing.totalWithdrawn += amount;
          },
        };
      },
    },
    {
      name: "withdrawFees",
      weight: 2,
      plan: () => {
        const withFees = listings.filter((listing) => listing.accruedFees > 0n);
        if (withFees.length === 0) return undefined;
        const chosen = withFees.filter(() => random.chance(0.6));
        if (chosen.length === 0) chosen.push(...withFees.slice(0, 1));
        // A repeated id and a listing without fees are legal and pay nothing extra.
        const extra = [
          random.pick(chosen),
          random.pick(listings.filter((listing) => listing.accruedFees === 0n)),
        ].filter((listing) => listing !== undefined && random.chance(0.3)) as ListingState[];
        const ids = [...chosen, ...extra].map((listing) => listing.id);
        return {
          send: () => market(protocol.feeRecipient).withdrawFees([ids]),
          apply: () => {
            for (const listing of chosen) {
              protocol.totalFeesWithdrawn += listing.accruedFees;
              listing.accruedFees = 0n;
            }
          },
        };
      },
    },
    {
      name: "setFeeBasisPoints",
      weight: 1,
      plan: () => {
        const feeBasisPoints = BigInt(random.int(1001));
        return {
          send: () => market(protocol.authority).setFeeBasisPoints([feeBasisPoints]),
          apply: () => {
            protocol.feeBasisPoints = feeBasisPoints;
          },
        };
      },
    },
    {
      name: "setPaused",
      weight: 0.5,
      plan: () => ({
        send: () => market(protocol.authority).setPaused([!protocol.paused]),
        apply: () => {
          protocol.paused = !protocol.paused;
        },
      }),
    },
    {
      name: "setFeeRecipient",
      weight: 0.5,
      plan: () => {
        const recipient =
          protocol.feeRecipient === protocolAccountA ? protocolAccountB : protocolAccountA;
        return {
          send: () => market(protocol.authority).setFeeRecipient([recipient.address]),
          apply: () => {
            protocol.feeRecipient = recipient;
          },
        };
      },
    },
    {
      name: "transferAuthority",
      weight: 0.5,
      plan: () => {
        const authority =
          protocol.authority === protocolAccountA ? protocolAccountB : protocolAccountA;
        return {
          send: () => market(protocol.authority).transferAuthority([authority.address]),
          apply: () => {
            protocol.authority = authority;
          },
        };
      },
    },
  ];

  /** Sends one random valid transaction and waits for it; sometimes lets time pass first. */
  async function step(rpcUrl: string): Promise<string> {
    if (random.chance(0.04)) {
      // Lets subscriptions lapse so renewals also start from "now" rather than from their expiry.
      await rpcRequest(rpcUrl, "evm_increaseTime", [1 + random.int(60 * 24 * 60 * 60)]);
      await rpcRequest(rpcUrl, "evm_mine");
      timeJumps++;
    }
    for (;;) {
      const operation = random.weighted(operations);
      const planned = operation.plan();
      if (!planned) continue;
      await marketplace.mined(planned.send());
      planned.apply();
      return operation.name;
    }
  }

  return {
    listings,
    protocol,
    operations,
    allCredentials,
    step,
    timeJumps: () => timeJumps,
  };
}

function readableContract(marketplace: MarketplaceConnection, address: Address) {
  return getContract({ address, abi: serviceMarketplaceAbi, client: marketplace.publicClient });
}

let anvil: Anvil | undefined;
let postgres: Postgres | undefined;
let ponder: TestPonder | undefined;
let projectionsConnection: ReturnType<typeof connectProjections> | undefined;
let deployment: Deployment;
let workload: ReturnType<typeof createWorkload>;
let lastBlock: bigint;
let atLastBlock: { blockNumber: bigint };
let contract: ReturnType<typeof readableContract>;
const sentOperations = new Map<string, number>();

beforeAll(async () => {
  [anvil, postgres] = await Promise.all([startTestAnvil(), startTestPostgres()]);
  deployment = await deployMarketplace({
    rpcUrl: anvil.rpcUrl,
    deployerKey: devPrivateKey(0),
    authority: protocolAccountA.address,
    feeRecipient: protocolAccountB.address,
  });
  // Indexing while the workload runs, as in production, rather than backfilling it afterwards.
  ponder = await startTestPonder({
    rpcUrl: anvil.rpcUrl,
    databaseUrl: postgres.databaseUrl,
    deployment,
  });

  const marketplace = connectMarketplace(anvil.rpcUrl, deployment.address);
  workload = createWorkload(marketplace, seededRandom(WORKLOAD_SEED));
  for (let sent = 0; sent < MIN_TRANSACTIONS; sent++) {
    const name = await workload.step(anvil.rpcUrl);
    sentOperations.set(name, (sentOperations.get(name) ?? 0) + 1);
  }

  contract = readableContract(marketplace, deployment.address);
  // viem caches the block number for its polling interval: ask the chain, not the cache.
  lastBlock = await marketplace.publicClient.getBlockNumber({ cacheTime: 0 });
  atLastBlock = { blockNumber: lastBlock };
  await ponder.waitForBlock(lastBlock, 180_000);
  projectionsConnection = connectProjections(postgres.databaseUrl, ponder.viewsSchema);
}, 300_000);

afterAll(async () => {
  await projectionsConnection?.close();
  await ponder?.stop();
  await Promise.all([postgres?.stop(), anvil?.stop()]);
});

const byId = <T extends { id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.id.localeCompare(b.id));
const byPair = <T extends { listingId: string; buyer: string }>(rows: T[]) =>
  [...rows].sort((a, b) => `${a.listingId}${a.buyer}`.localeCompare(`${b.listingId}${b.buyer}`));
const lower = (address: Address) => address.toLowerCase() as Hex;

function readProjections() {
  const { db } = projectionsConnection as NonNullable<typeof projectionsConnection>;
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
    expect(models).toEqual(new Set([ONE_TIME, SUBSCRIPTION, PER_QUERY]));
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
    const projected = byId(await readProjections().listings()).map((row) => ({
      id: row.id,
      creator: row.creator,
      price: row.price,
      escrow: row.escrow,
      accruedFees: row.accruedFees,
      rentalModel: row.rentalModel,
      status: row.status,
    }));
    const onChain = await Promise.all(
      byId(workload.listings).map(async ({ id }) => {
        const [creator, price, escrow, accruedFees, model, status] = await contract.read.listings(
          [id],
          atLastBlock,
        );
        return {
          id,
          creator: lower(creator),
          price,
          escrow,
          accruedFees,
          rentalModel: RENTAL_MODELS[model],
          status: LISTING_STATUSES[status],
        };
      }),
    );
    expect(projected).toEqual(onChain);
  });

  it("matches every credential the contract returns for the same block, field by field", async () => {
    const projected = byPair(await readProjections().credentials()).map((row) => ({
      listingId: row.listingId,
      buyer: row.buyer,
      rentalModel: row.rentalModel,
      purchasedAt: row.purchasedAt,
      expiresAt: row.expiresAt,
      isRevoked: row.isRevoked,
      balance: row.balance,
    }));
    const onChain = await Promise.all(
      workload.allCredentials().map(async ({ listing, credential }) => {
        const buyer = credential.renter.address;
        const key = { listingId: listing.id, buyer: lower(buyer) };
        const rentalModel = RENTAL_MODELS[listing.rentalModel];
        if (listing.rentalModel === PER_QUERY) {
          const [balance, purchasedAt, isRevoked] = await contract.read.perQueryBalances(
            [listing.id, buyer],
            atLastBlock,
          );
          return {
            ...key,
            rentalModel,
            purchasedAt: BigInt(purchasedAt),
            expiresAt: null,
            isRevoked,
            balance,
          };
        }
        const [, purchasedAt, expiresAt, isRevoked] = await contract.read.credentials(
          [listing.id, buyer],
          atLastBlock,
        );
        return {
          ...key,
          rentalModel,
          purchasedAt: BigInt(purchasedAt),
          // The contract stores 0 for "never expires"; the projection says null.
          expiresAt: expiresAt === 0 ? null : BigInt(expiresAt),
          isRevoked,
          balance: 0n,
        };
      }),
    );
    expect(projected).toEqual(byPair(onChain));
  });

  it("keeps listing, credential, creator and protocol totals equal to the workload's sums", async () => {
    const read = readProjections();
    const listingTotals = byId(await read.listings()).map((row) => ({
      id: row.id,
      metadataUri: row.metadataUri,
      totalEarned: row.totalEarned,
      totalWithdrawn: row.totalWithdrawn,
      credentialCount: row.credentialCount,
      runCount: row.runCount,
      failedRunCount: row.failedRunCount,
    }));
    expect(listingTotals).toEqual(
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

    const credentialTotals = byPair(await read.credentials()).map((row) => ({
      listingId: row.listingId,
      buyer: row.buyer,
      totalPaid: row.totalPaid,
      tasksConsumed: row.tasksConsumed,
    }));
    expect(credentialTotals).toEqual(
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

    const [authority, feeRecipient, feeBasisPoints, paused] = await Promise.all([
      contract.read.authority(atLastBlock),
      contract.read.feeRecipient(atLastBlock),
      contract.read.feeBasisPoints(atLastBlock),
      contract.read.paused(atLastBlock),
    ]);
    expect(await read.protocol()).toEqual([
      {
        id: lower(deployment.address),
        authority: lower(authority),
        feeRecipient: lower(feeRecipient),
        feeBasisPoints: Number(feeBasisPoints),
        paused,
        totalFees: workload.protocol.totalFees,
        totalFeesWithdrawn: workload.protocol.totalFeesWithdrawn,
      },
    ]);
  });
});
