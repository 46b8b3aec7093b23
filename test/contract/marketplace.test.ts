import { type BaseError, ContractFunctionRevertedError, type Hex, parseEther } from "viem";
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
import type { Anvil } from "../../devStack/startAnvil.ts";
import { contractErrorName } from "../../lib/chain/contractErrorName.ts";
import { type Deployment, deployMarketplace } from "../../lib/chain/deployMarketplace.ts";
import { devAccount, devPrivateKey } from "../../lib/chain/devAccounts.ts";
import { startTestAnvil } from "../harness/harness.ts";

const PRICE = parseEther("0.01");

const authority = devAccount(0);
const creator = devAccount(2);
const renter = devAccount(3);

let anvil: Anvil;
let deployment: Deployment;
let marketplace: MarketplaceConnection;

const marketAs = (account: typeof creator) => marketplace.as(account);
const mined = (hash: Promise<Hex>) => marketplace.mined(hash);

async function createListing(seedText: string, model: number): Promise<Hex> {
  const seed = seedOf(seedText);
  await mined(marketAs(creator).write.createListing([seed, model, PRICE, METADATA_URI]));
  return marketAs(creator).read.deriveListingId([creator.address, seed]);
}

beforeAll(async () => {
  anvil = await startTestAnvil();
  deployment = await deployMarketplace({
    rpcUrl: anvil.rpcUrl,
    deployerKey: devPrivateKey(0),
    authority: authority.address,
    feeRecipient: devAccount(1).address,
  });
  marketplace = connectMarketplace(anvil.rpcUrl, deployment.address);
});

afterAll(async () => {
  await anvil?.stop();
});

describe("ServiceMarketplace on anvil", () => {
  it("is deployed with its authority and the default 2.5% fee", async () => {
    const market = marketAs(renter);
    expect(deployment.chainId).toBe(31337);
    expect(deployment.startBlock).toBeGreaterThan(0);
    expect(await market.read.authority()).toBe(authority.address);
    expect(await market.read.feeBasisPoints()).toBe(250n);
  });

  it("sells one-time access: a permanent credential, the price split into fee and escrow", async () => {
    const listingId = await createListing("one-time", ONE_TIME);
    const market = marketAs(renter);
    await mined(market.write.purchaseOneTime([listingId], { value: PRICE }));

    expect(await market.read.isCredentialValid([listingId, renter.address])).toBe(true);
    const [buyer, , expiresAt, isRevoked] = await market.read.credentials([
      listingId,
      renter.address,
    ]);
    expect({ buyer, expiresAt, isRevoked }).toEqual({
      buyer: renter.address,
      expiresAt: 0,
      isRevoked: false,
    });
    const [, , escrow, accruedFees] = await market.read.listings([listingId]);
    expect(accruedFees).toBe((PRICE * 250n) / 10_000n);
    expect(escrow + accruedFees).toBe(PRICE);
  });

  it("sells a 30-day subscription that expires 30 days after purchase", async () => {
    const listingId = await createListing("subscription", SUBSCRIPTION);
    const market = marketAs(renter);
    const receipt = await mined(
      market.write.purchaseSubscription([listingId, THIRTY_DAYS], { value: PRICE }),
    );
    const block = await marketplace.publicClient.getBlock({ blockNumber: receipt.blockNumber });

    const [, purchasedAt, expiresAt] = await market.read.credentials([listingId, renter.address]);
    expect(BigInt(purchasedAt)).toBe(block.timestamp);
    expect(BigInt(expiresAt)).toBe(block.timestamp + THIRTY_DAYS);
    expect(await market.read.isCredentialValid([listingId, renter.address])).toBe(true);
  });

  it("sells a per-task balance that each run id debits once", async () => {
    const listingId = await createListing("per-task", PER_QUERY);
    await mined(marketAs(renter).write.purchasePerQuery([listingId], { value: PRICE * 2n }));
    const asAuthority = marketAs(authority);
    await mined(asAuthority.write.consumeQuery([listingId, renter.address, 1n]));

    const [balance] = await asAuthority.read.perQueryBalances([listingId, renter.address]);
    expect(balance).toBe(PRICE);
    expect(await asAuthority.read.getAccessState([listingId, renter.address])).toMatchObject({
      isValid: true,
      hasCredential: true,
      balance: PRICE,
      price: PRICE,
    });

    const replay = await asAuthority.simulate
      .consumeQuery([listingId, renter.address, 1n], { account: authority })
      .catch((error: unknown) => error);
    expect(contractErrorName(replay)).toBe("RunAlreadyRecorded");
  });

  it("decodes custom-error reverts by name, with their arguments", async () => {
    const listingId = await createListing("errors", ONE_TIME);
    const market = marketAs(renter);
    const underpaid = await market.simulate
      .purchaseOneTime([listingId], { account: renter, value: PRICE - 1n })
      .catch((error: unknown) => error);

    expect(contractErrorName(underpaid)).toBe("IncorrectPayment");
    const reverted = (underpaid as BaseError).walk(
      (cause) => cause instanceof ContractFunctionRevertedError,
    ) as ContractFunctionRevertedError;
    expect(reverted.data?.args).toEqual([PRICE - 1n, PRICE]);

    await mined(market.write.purchaseOneTime([listingId], { value: PRICE }));
    const twice = await market.write
      .purchaseOneTime([listingId], { value: PRICE })
      .catch((error: unknown) => error);
    expect(contractErrorName(twice)).toBe("CredentialAlreadyExists");
  });
});

describe("gas on a real chain, steady state, 21k base included", () => {
  it("stays within each operation's ceiling", async () => {
    const [warmRenter, measuredRenter] = [devAccount(4), devAccount(5)];
    const gasUsed: Record<string, bigint> = {};
    const measure = async (name: string, hash: Promise<Hex>) => {
      gasUsed[name] = (await mined(hash)).gasUsed;
    };

    await createListing("gas warm-up", ONE_TIME);
    const seed = seedOf("gas one-time");
    await measure(
      "createListing",
      marketAs(creator).write.createListing([seed, ONE_TIME, PRICE, METADATA_URI]),
    );
    const oneTime = await marketAs(creator).read.deriveListingId([creator.address, seed]);
    const subscription = await createListing("gas subscription", SUBSCRIPTION);
    const perTask = await createListing("gas per-task", PER_QUERY);

    const warm = marketAs(warmRenter);
    await mined(warm.write.purchaseOneTime([oneTime], { value: PRICE }));
    await mined(warm.write.purchaseSubscription([subscription, THIRTY_DAYS], { value: PRICE }));
    await mined(warm.write.purchasePerQuery([perTask], { value: PRICE * 10n }));
    await mined(marketAs(authority).write.consumeQuery([perTask, warmRenter.address, 1000n]));

    const renterMarket = marketAs(measuredRenter);
    await measure(
      "purchaseOneTime",
      renterMarket.write.purchaseOneTime([oneTime], { value: PRICE }),
    );
    await measure(
      "purchaseSubscription",
      renterMarket.write.purchaseSubscription([subscription, THIRTY_DAYS], { value: PRICE }),
    );
    await measure(
      "purchasePerQuery",
      renterMarket.write.purchasePerQuery([perTask], { value: PRICE * 10n }),
    );
    await measure(
      "renewSubscription",
      renterMarket.write.renewSubscription([subscription, THIRTY_DAYS], { value: PRICE }),
    );
    await measure("topUpBalance", renterMarket.write.topUpBalance([perTask], { value: PRICE }));
    await measure(
      "consumeQuery",
      marketAs(authority).write.consumeQuery([perTask, measuredRenter.address, 1001n]),
    );
    const [, , escrow] = await renterMarket.read.listings([oneTime]);
    await measure("withdrawEarnings", marketAs(creator).write.withdrawEarnings([oneTime, escrow]));

    const ceilings: Record<string, bigint> = {
      createListing: 80_000n,
      purchaseOneTime: 75_000n,
      purchaseSubscription: 75_000n,
      purchasePerQuery: 80_000n,
      renewSubscription: 50_000n,
      topUpBalance: 40_000n,
      consumeQuery: 50_000n,
      withdrawEarnings: 40_000n,
    };
    for (const [name, ceiling] of Object.entries(ceilings)) {
      expect(gasUsed[name], name).toBeLessThanOrEqual(ceiling);
    }
  });
});
