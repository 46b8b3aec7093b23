// The gas figures of contracts/snapshots/GasTest.json hold on a real chain: Gas.t.sol's transactions,
// sent to anvil from the same accounts with the same arguments, use exactly the gas it records.
import { readFile } from "node:fs/promises";
import { createTestClient, type Hex, http, keccak256, parseEther, toHex } from "viem";
import { type LocalAccount, privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { describe, expect, it } from "vitest";
import {
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  THIRTY_DAYS,
} from "../../devStack/marketplace.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { useStack } from "../support/useStack.ts";

const GAS_SNAPSHOT = new URL("../../contracts/snapshots/GasTest.json", import.meta.url);
const PRICE = parseEther("0.01");

/** The account behind forge-std's `makeAddr(name)`, whose private key is `keccak256(name)`. */
const makeAddr = (name: string) => privateKeyToAccount(keccak256(toHex(name)));
/** Gas.t.sol's listing seed `bytes32(uint256(n))`. */
const seed = (n: number) => toHex(n, { size: 32 });

const operator = devAccount(LOCAL_ROLES.operator);
const creator = makeAddr("creator");
const renter = makeAddr("renter");
const secondRenter = makeAddr("secondRenter");
const newRenter = makeAddr("newRenter");
const BATCH_SIZES = [1, 10, 50] as const;
const ANCHOR_SIZES = [1, 10, 100] as const;
const SETTLE_SIZES = [10, 50] as const;
const ANCHORED_LISTINGS = 10;
const RECEIPTS_ROOT = keccak256(toHex("receipts root"));
const NO_DEBITS: never[] = [];
const batchRenters = Array.from({ length: 50 }, (_, i) => makeAddr(`batchRenter${i}`));

const stack = useStack({ chain: true, postgres: false });

async function readGasSnapshot(): Promise<Record<string, bigint>> {
  const figures = JSON.parse(await readFile(GAS_SNAPSHOT, "utf8")) as Record<string, string>;
  return Object.fromEntries(Object.entries(figures).map(([name, gas]) => [name, BigInt(gas)]));
}

describe("gas on a real chain", () => {
  it("equals the forge gas snapshot, operation for operation", async () => {
    const { marketplace, anvil } = stack();
    const market = (account: LocalAccount) => marketplace.as(account);
    const { mined } = marketplace;
    const chain = createTestClient({
      chain: foundry,
      mode: "anvil",
      transport: http(anvil.rpcUrl),
    });
    for (const { address } of [creator, renter, secondRenter, newRenter, ...batchRenters]) {
      await chain.setBalance({ address, value: parseEther("100") });
    }

    // Gas.t.sol's setUp.
    const createListing = async (n: number, model: number) => {
      await mined(market(creator).write.createListing([seed(n), model, PRICE, METADATA_URI]));
      return market(creator).read.deriveListingId([creator.address, seed(n)]);
    };
    await createListing(9, ONE_TIME);
    const oneTime = await createListing(1, ONE_TIME);
    const subscription = await createListing(2, SUBSCRIPTION);
    const perQuery = await createListing(3, PER_QUERY);
    const second = market(secondRenter);
    await mined(second.write.purchaseOneTime([oneTime], { value: PRICE }));
    await mined(second.write.purchaseSubscription([subscription, THIRTY_DAYS], { value: PRICE }));
    await mined(second.write.purchasePerQuery([perQuery, PRICE], { value: 10n * PRICE }));
    await mined(
      market(operator).write.consumeQuery([perQuery, secondRenter.address, 1n, PRICE, true]),
    );
    await mined(
      market(renter).write.purchaseSubscription([subscription, THIRTY_DAYS], { value: PRICE }),
    );
    await mined(market(renter).write.purchasePerQuery([perQuery, PRICE], { value: 10n * PRICE }));
    for (const batchRenter of batchRenters) {
      await mined(
        market(batchRenter).write.purchasePerQuery([perQuery, PRICE], { value: 10n * PRICE }),
      );
    }
    const [, , escrow] = await market(creator).read.listings([oneTime]);

    // Each of its tests starts from setUp: so does each transaction here.
    const gasOf = async (send: () => Promise<Hex>) => {
      const id = await chain.snapshot();
      const { gasUsed } = await mined(send());
      await chain.revert({ id });
      return gasUsed;
    };
    const receiptGas = {
      createListing: await gasOf(() =>
        market(creator).write.createListing([seed(4), ONE_TIME, PRICE, METADATA_URI]),
      ),
      purchaseOneTime: await gasOf(() =>
        market(newRenter).write.purchaseOneTime([oneTime], { value: PRICE }),
      ),
      purchaseSubscription: await gasOf(() =>
        market(newRenter).write.purchaseSubscription([subscription, THIRTY_DAYS], { value: PRICE }),
      ),
      purchasePerQuery: await gasOf(() =>
        market(newRenter).write.purchasePerQuery([perQuery, PRICE], { value: 10n * PRICE }),
      ),
      renewSubscription: await gasOf(() =>
        market(renter).write.renewSubscription([subscription, THIRTY_DAYS], { value: PRICE }),
      ),
      topUpBalance: await gasOf(() =>
        market(renter).write.topUpBalance([perQuery, PRICE], { value: PRICE }),
      ),
      consumeQuery: await gasOf(() =>
        market(operator).write.consumeQuery([perQuery, renter.address, 2n, PRICE, true]),
      ),
      withdrawEarnings: await gasOf(() =>
        market(creator).write.withdrawEarnings([oneTime, escrow]),
      ),
    };

    // A batch of `size` debits of as many renters, run ids from 2: the transaction and its cost per debit.
    const debitsOf = (size: number) =>
      batchRenters.slice(0, size).map((batchRenter, i) => ({
        listingId: perQuery,
        buyer: batchRenter.address,
        runId: 2n + BigInt(i),
        maxPrice: PRICE,
        succeeded: true,
      }));
    const batchGas: Record<string, bigint> = {};
    for (const size of BATCH_SIZES) {
      const gas = await gasOf(() => market(operator).write.consumeQueries([debitsOf(size)]));
      batchGas[`consumeQueries_${size}`] = gas;
      batchGas[`consumeQueries_${size}_perDebit`] = gas / BigInt(size);
    }

    // An anchor alone of `size` runs, counted per listing over min(size, 10) listings, a tenth failed.
    const runCountsOf = async (runs: number) => {
      const listings = Math.min(runs, ANCHORED_LISTINGS);
      const perListing = Math.floor(runs / listings);
      return Promise.all(
        Array.from({ length: listings }, async (_, i) => ({
          listingId: await market(creator).read.deriveListingId([creator.address, seed(100 + i)]),
          runs: perListing,
          failed: Math.floor(perListing / 10),
        })),
      );
    };
    for (const size of ANCHOR_SIZES) {
      const counts = await runCountsOf(size);
      const gas = await gasOf(() =>
        market(operator).write.settle([NO_DEBITS, RECEIPTS_ROOT, counts]),
      );
      batchGas[`anchor_${size}`] = gas;
      batchGas[`anchor_${size}_perRun`] = gas / BigInt(size);
    }

    // `size` debits and, in the same transaction, an anchor counting `size` runs of the one-time listing.
    for (const size of SETTLE_SIZES) {
      const counts = [{ listingId: oneTime, runs: size, failed: 0 }];
      const gas = await gasOf(() =>
        market(operator).write.settle([debitsOf(size), RECEIPTS_ROOT, counts]),
      );
      batchGas[`settle_${size}`] = gas;
      batchGas[`settle_${size}_perDebit`] = gas / BigInt(size);
    }

    expect({ ...receiptGas, ...batchGas }).toEqual(await readGasSnapshot());
  });
});
