// A seeded random workload over every marketplace operation. It keeps a model of the contract so it
// only sends transactions that succeed, and the model supplies what the chain cannot answer (totals,
// counters).
import { type Address, type Hex, keccak256, parseEther, toHex, zeroHash } from "viem";
import type { HDAccount } from "viem/accounts";
import { METADATA_URI, seedOf } from "../../devStack/marketplace.ts";
import { feeOf } from "../../devStack/money.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { deriveListingId } from "../../lib/ids/listingId.ts";
import { nextDebit } from "../../lib/marketplace/credentialStatus.ts";
import {
  type ListingStatus,
  RENTAL_MODELS,
  type RentalModel,
} from "../../lib/marketplace/vocabulary.ts";
import type { TransactionBatches } from "../support/transactionBatches.ts";

const MIN_PRICE = parseEther("0.000001");
const DAY = 24n * 60n * 60n;
const SUBSCRIPTION_PERIOD = 30n * DAY;
const DURATIONS = [SUBSCRIPTION_PERIOD, 90n * DAY, 365n * DAY];
const UNLISTED_ID = seedOf("a listing nobody created");

export const creators = [2, 3, 4].map(devAccount);
export const renters = [5, 6, 7, 8, 9].map(devAccount);
// Authority and fee recipient are handed back and forth between these two during the workload.
const [protocolAccountA, protocolAccountB] = [devAccount(0), devAccount(1)] as const;
// The operator, which debits runs and anchors their receipts, rotates between the deployment's and another hot key.
const [deployedOperator, rotatedOperator] = [devAccount(LOCAL_ROLES.operator), devAccount(10)];

/** Gives the accounts the workload sends from beyond anvil's ten funded ones their gas money. */
export async function fundWorkloadAccounts(rpcUrl: string) {
  await rpcRequest(rpcUrl, "anvil_setBalance", [rotatedOperator.address, toHex(parseEther("100"))]);
}

type CredentialState = {
  renter: HDAccount;
  isRevoked: boolean;
  balance: bigint;
  /** Per-task: the listing's price at the last deposit, the most a run debits. */
  agreedPrice: bigint;
  totalPaid: bigint;
  tasksConsumed: number;
};

type ListingState = {
  id: Hex;
  creator: HDAccount;
  rentalModel: RentalModel;
  price: bigint;
  metadataUri: string;
  status: ListingStatus;
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

/** The workload from `seed`: a model of the marketplace and the operations that keep it in step. */
export function createWorkload(marketplace: Stack["marketplace"], seed: number) {
  const random = seededRandom(seed);
  const listings: ListingState[] = [];
  const protocol = {
    authority: protocolAccountA,
    operator: deployedOperator,
    feeRecipient: protocolAccountB,
    feeBasisPoints: 250n,
    paused: false,
    totalFees: 0n,
    totalFeesWithdrawn: 0n,
  };
  const settledRunIds: bigint[] = [];
  const anchoredRoots: Hex[] = [];
  let nextRunId = 1n;
  let anchorsPlanned = 0;
  let listingsCreated = 0;
  let timeJumps = 0;

  const market = (account: HDAccount) => marketplace.as(account).write;
  /** Who debits runs or anchors them: the operator mostly, the authority (which may too) now and then. */
  const runKeeper = () => (random.chance(0.2) ? protocol.authority : protocol.operator);
  const randomPrice = () => random.bigint(MIN_PRICE, parseEther("0.01"));
  const openListings = () => listings.filter((listing) => listing.status !== "closed");
  const forSale = (model: RentalModel) =>
    protocol.paused
      ? []
      : listings.filter((listing) => listing.status === "active" && listing.rentalModel === model);
  const allCredentials = () =>
    listings.flatMap((listing) =>
      [...listing.credentials.values()].map((credential) => ({ listing, credential })),
    );
  const credentialsOf = (model: RentalModel) =>
    allCredentials().filter(({ listing }) => listing.rentalModel === model);
  /** Per-task credentials whose next run the contract would debit now. */
  const debitable = () =>
    credentialsOf("per_query").filter(
      ({ listing, credential }) =>
        !protocol.paused &&
        listing.status !== "closed" &&
        !credential.isRevoked &&
        credential.balance >= nextDebit({ ...credential, price: listing.price }),
    );

  /** Books a sale as `_collect` does: the fee at the current rate, the rest into escrow. */
  function collect(listing: ListingState, amount: bigint) {
    const fee = feeOf(amount, protocol.feeBasisPoints);
    listing.accruedFees += fee;
    listing.escrow += amount - fee;
    listing.totalEarned += amount - fee;
    protocol.totalFees += fee;
  }

  function newCredential(listing: ListingState, renter: HDAccount, totalPaid: bigint) {
    const credential = {
      renter,
      isRevoked: false,
      balance: 0n,
      agreedPrice: 0n,
      totalPaid,
      tasksConsumed: 0,
    };
    listing.credentials.set(renter.address, credential);
    return credential;
  }

  /** Plans `make` for a random one of `candidates`; nothing when there are none. */
  function forOne<T>(candidates: readonly T[], make: (picked: T) => Planned): Planned | undefined {
    const picked = random.pick(candidates);
    return picked === undefined ? undefined : make(picked);
  }

  /** Plans `make` for a listing of `model` on sale and a renter with no credential for it yet. */
  function forNewRental(
    model: RentalModel,
    make: (listing: ListingState, renter: HDAccount) => Planned,
  ): Planned | undefined {
    const listing = random.pick(forSale(model));
    const renter = random.pick(
      renters.filter((r) => listing && !listing.credentials.has(r.address)),
    );
    return listing && renter ? make(listing, renter) : undefined;
  }

  /** Credentials of `model` whose renter may pay in more: not revoked, on an active listing. */
  const payable = (model: RentalModel) =>
    credentialsOf(model).filter(
      ({ listing, credential }) =>
        !protocol.paused && listing.status === "active" && !credential.isRevoked,
    );
  const unrevoked = (...models: RentalModel[]) =>
    models
      .flatMap((model) => credentialsOf(model))
      .filter(({ credential }) => !credential.isRevoked);

  /** A random subscription length and what it costs on `listing`. */
  function subscriptionQuote(listing: ListingState) {
    const duration = random.pick(DURATIONS) as bigint;
    return { duration, quote: (listing.price * duration) / SUBSCRIPTION_PERIOD };
  }

  /** A sale of `amount` to `renter`: a new credential, the amount booked as `_collect` does. */
  function sell(listing: ListingState, renter: HDAccount, amount: bigint) {
    newCredential(listing, renter, amount);
    collect(listing, amount);
  }

  /** Hands the protocol's `role` from one protocol account to the other, sending with `send`. */
  function handOver(
    role: "authority" | "feeRecipient",
    send: (to: Address) => Promise<Hex>,
  ): Planned {
    const next = protocol[role] === protocolAccountA ? protocolAccountB : protocolAccountA;
    return {
      send: () => send(next.address),
      apply: () => {
        protocol[role] = next;
      },
    };
  }

  /**
   * A batch of debits of runs whose next debit the contract would make now, and what it does to the
   * model once mined; nothing when no run is debitable.
   */
  function planDebitBatch() {
    const candidates = debitable();
    if (candidates.length === 0) return undefined;
    // Debited in order, as the contract does: a credential picked twice pays twice while its
    // balance lasts, and a debit it can no longer pay is skipped.
    const picks = Array.from({ length: 1 + random.int(4) }, () => random.pick(candidates));
    const left = new Map<CredentialState, bigint>();
    const debited: {
      listing: ListingState;
      credential: CredentialState;
      price: bigint;
      runId: bigint;
      succeeded: boolean;
    }[] = [];
    const debits = picks.flatMap((picked) => {
      if (!picked) return [];
      const { listing, credential } = picked;
      const price = nextDebit({ ...credential, price: listing.price });
      const balance = left.get(credential) ?? credential.balance;
      const runId = nextRunId++;
      const succeeded = random.chance(0.7);
      if (balance >= price) {
        left.set(credential, balance - price);
        debited.push({ listing, credential, price, runId, succeeded });
      }
      return [
        {
          listingId: listing.id,
          buyer: credential.renter.address,
          runId,
          maxPrice: price,
          succeeded,
        },
      ];
    });
    // A settled run id again: skipped by the contract, never projected.
    const replayed = random.chance(0.5) ? random.pick(settledRunIds) : undefined;
    const first = debits[0];
    if (replayed !== undefined && first) debits.push({ ...first, runId: replayed });
    return {
      debits,
      apply: () => {
        for (const { listing, credential, price, runId, succeeded } of debited) {
          credential.balance -= price;
          credential.tasksConsumed += 1;
          listing.runCount += 1;
          if (!succeeded) listing.failedRunCount += 1;
          settledRunIds.push(runId);
          collect(listing, price);
        }
      },
    };
  }

  const operations: Operation[] = [
    {
      name: "createListing",
      weight: 3,
      plan: () => {
        if (protocol.paused) return undefined;
        const creator = random.pick(creators) as HDAccount;
        const seed = seedOf(`drift listing ${listingsCreated++}`);
        const rentalModel = random.pick(RENTAL_MODELS) as RentalModel;
        const onChainModel = RENTAL_MODELS.indexOf(rentalModel);
        const price = randomPrice();
        return {
          send: () => market(creator).createListing([seed, onChainModel, price, METADATA_URI]),
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
      plan: () =>
        forOne(openListings(), (listing) => {
          const price = randomPrice();
          const metadataUri = `${METADATA_URI}#v${random.int(1_000_000)}`;
          return {
            send: () => market(listing.creator).updateListing([listing.id, price, metadataUri]),
            apply: () => Object.assign(listing, { price, metadataUri }),
          };
        }),
    },
    {
      name: "pauseOrReactivateListing",
      weight: 2,
      plan: () =>
        forOne(openListings(), (listing) => {
          const active = listing.status === "paused";
          return {
            send: () => market(listing.creator).setListingActive([listing.id, active]),
            apply: () => Object.assign(listing, { status: active ? "active" : "paused" }),
          };
        }),
    },
    {
      name: "closeListing",
      weight: 1,
      plan: () =>
        forOne(
          openListings().filter((l) => l.escrow === 0n),
          (listing) => ({
            send: () => market(listing.creator).closeListing([listing.id]),
            apply: () => Object.assign(listing, { status: "closed" }),
          }),
        ),
    },
    {
      name: "purchaseOneTime",
      weight: 4,
      plan: () =>
        forNewRental("one_time", (listing, renter) => {
          const price = listing.price;
          return {
            send: () => market(renter).purchaseOneTime([listing.id], { value: price }),
            apply: () => sell(listing, renter, price),
          };
        }),
    },
    {
      name: "purchaseSubscription",
      weight: 4,
      plan: () =>
        forNewRental("subscription", (listing, renter) => {
          const { duration, quote } = subscriptionQuote(listing);
          return {
            send: () =>
              market(renter).purchaseSubscription([listing.id, duration], { value: quote }),
            apply: () => sell(listing, renter, quote),
          };
        }),
    },
    {
      name: "purchasePerQuery",
      weight: 4,
      plan: () =>
        forNewRental("per_query", (listing, renter) => {
          const deposit = listing.price * BigInt(1 + random.int(6)) + random.bigint(0n, MIN_PRICE);
          return {
            send: () =>
              market(renter).purchasePerQuery([listing.id, listing.price], { value: deposit }),
            apply: () => {
              const credential = newCredential(listing, renter, deposit);
              credential.balance = deposit;
              credential.agreedPrice = listing.price;
            },
          };
        }),
    },
    {
      name: "renewSubscription",
      weight: 3,
      plan: () =>
        forOne(payable("subscription"), ({ listing, credential }) => {
          const { duration, quote } = subscriptionQuote(listing);
          const { renter } = credential;
          return {
            send: () => market(renter).renewSubscription([listing.id, duration], { value: quote }),
            apply: () => {
              credential.totalPaid += quote;
              collect(listing, quote);
            },
          };
        }),
    },
    {
      name: "topUpBalance",
      weight: 3,
      plan: () =>
        forOne(payable("per_query"), ({ listing, credential }) => {
          const amount = listing.price * BigInt(1 + random.int(4)) + random.bigint(0n, MIN_PRICE);
          return {
            send: () =>
              market(credential.renter).topUpBalance([listing.id, listing.price], {
                value: amount,
              }),
            apply: () => {
              credential.balance += amount;
              credential.agreedPrice = listing.price;
              credential.totalPaid += amount;
            },
          };
        }),
    },
    {
      name: "consumeQuery",
      weight: 8,
      plan: () => {
        return forOne(debitable(), ({ listing, credential }) => {
          const runId = nextRunId++;
          // Admitted and debited at once: the debit's most is the next debit's price now.
          const debit = nextDebit({ ...credential, price: listing.price });
          // A run that failed after its output reached the renter is debited too, and counted failed.
          const succeeded = random.chance(0.7);
          const args = [listing.id, credential.renter.address, runId, debit, succeeded] as const;
          return {
            send: () => market(runKeeper()).consumeQuery(args),
            apply: () => {
              credential.balance -= debit;
              credential.tasksConsumed += 1;
              listing.runCount += 1;
              if (!succeeded) listing.failedRunCount += 1;
              settledRunIds.push(runId);
              collect(listing, debit);
            },
          };
        });
      },
    },
    {
      name: "consumeQueries",
      weight: 4,
      plan: () => {
        const batch = planDebitBatch();
        if (!batch) return undefined;
        return {
          send: () => market(runKeeper()).consumeQueries([batch.debits]),
          apply: batch.apply,
        };
      },
    },
    {
      name: "settle",
      weight: 3,
      plan: () => {
        if (listings.length === 0) return undefined;
        // Debits ride along now and then, as settlement sends them; an anchor alone works while paused.
        const batch = random.chance(0.4) ? planDebitBatch() : undefined;
        if (batch && random.chance(0.2)) {
          // Debits without an anchor: root zero, no counts.
          return {
            send: () => market(runKeeper()).settle([batch.debits, zeroHash, []]),
            apply: batch.apply,
          };
        }
        const counts = Array.from({ length: 1 + random.int(3) }, () => {
          const listing = random.pick(listings) as ListingState;
          const runs = 1 + random.int(5);
          return { listing, runs, failed: random.int(runs + 1) };
        });
        // The contract counts runs against any id, even one without a listing, which must not appear.
        const stray = random.chance(0.2) ? [{ listingId: UNLISTED_ID, runs: 2, failed: 1 }] : [];
        // A root anchored before is skipped by the contract, its counts never added again.
        const replayed = random.chance(0.3) ? random.pick(anchoredRoots) : undefined;
        const root = replayed ?? keccak256(toHex(`drift anchor ${anchorsPlanned++}`));
        const runCounts = [
          ...counts.map(({ listing, runs, failed }) => ({ listingId: listing.id, runs, failed })),
          ...stray,
        ];
        return {
          send: () => market(runKeeper()).settle([batch?.debits ?? [], root, runCounts]),
          apply: () => {
            batch?.apply();
            if (replayed) return;
            anchoredRoots.push(root);
            for (const { listing, runs, failed } of counts) {
              listing.runCount += runs;
              listing.failedRunCount += failed;
            }
          },
        };
      },
    },
    {
      name: "revokeAccess",
      weight: 1,
      plan: () =>
        forOne(unrevoked("one_time", "subscription"), ({ listing, credential }) => ({
          send: () => market(listing.creator).revokeAccess([listing.id, credential.renter.address]),
          apply: () => Object.assign(credential, { isRevoked: true }),
        })),
    },
    {
      name: "revokePerQueryAccess",
      weight: 1,
      plan: () =>
        forOne(unrevoked("per_query"), ({ listing, credential }) => {
          const args = [listing.id, credential.renter.address] as const;
          return {
            send: () => market(listing.creator).revokePerQueryAccess(args),
            apply: () => Object.assign(credential, { isRevoked: true }),
          };
        }),
    },
    {
      name: "reclaimBalance",
      weight: 2,
      plan: () => {
        const reclaimable = credentialsOf("per_query").filter(
          ({ listing, credential }) =>
            (credential.isRevoked || listing.status === "closed") && credential.balance > 0n,
        );
        return forOne(reclaimable, ({ listing, credential }) => ({
          send: () => market(credential.renter).reclaimBalance([listing.id]),
          apply: () => Object.assign(credential, { balance: 0n }),
        }));
      },
    },
    {
      name: "withdrawEarnings",
      weight: 3,
      plan: () =>
        forOne(
          listings.filter((l) => l.escrow > 0n),
          (listing) => {
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
        ),
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
          apply: () => Object.assign(protocol, { feeBasisPoints }),
        };
      },
    },
    {
      name: "setPaused",
      weight: 0.5,
      plan: () => ({
        send: () => market(protocol.authority).setPaused([!protocol.paused]),
        apply: () => Object.assign(protocol, { paused: !protocol.paused }),
      }),
    },
    {
      name: "setFeeRecipient",
      weight: 0.5,
      plan: () =>
        handOver("feeRecipient", (to) => market(protocol.authority).setFeeRecipient([to])),
    },
    {
      name: "setOperator",
      weight: 0.5,
      plan: () => {
        const next = protocol.operator === deployedOperator ? rotatedOperator : deployedOperator;
        return {
          send: () => market(protocol.authority).setOperator([next.address]),
          apply: () => Object.assign(protocol, { operator: next }),
        };
      },
    },
    {
      name: "transferAuthority",
      weight: 0.5,
      plan: () => handOver("authority", (to) => market(protocol.authority).transferAuthority([to])),
    },
  ];

  /** Sends one random valid transaction into `blocks`; sometimes lets time pass first. */
  async function step(blocks: TransactionBatches, rpcUrl: string): Promise<string> {
    if (random.chance(0.04)) {
      // Lets subscriptions lapse so renewals also start from "now" rather than from their expiry.
      // What is pending is mined first, at the time its gas was estimated for; the next block and
      // the estimates for it take the later time.
      await blocks.mine();
      await rpcRequest(rpcUrl, "evm_increaseTime", [1 + random.int(60 * 24 * 60 * 60)]);
      timeJumps++;
    }
    for (;;) {
      const operation = random.weighted(operations);
      const planned = operation.plan();
      if (!planned) continue;
      await blocks.send(planned.send());
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

export type Workload = ReturnType<typeof createWorkload>;
