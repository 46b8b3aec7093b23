import { type BaseError, ContractFunctionRevertedError, type Hex, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  seedOf,
  THIRTY_DAYS,
} from "../../devStack/marketplace.ts";
import { feeOf, shareOf } from "../../devStack/money.ts";
import { contractErrorName } from "../../lib/chain/contractErrorName.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { useStack } from "../support/useStack.ts";

const PRICE = parseEther("0.01");

const authority = devAccount(0);
const operator = devAccount(LOCAL_ROLES.operator);
const creator = devAccount(2);
const renter = devAccount(3);

const stack = useStack({ chain: true, postgres: false });

const marketAs = (account: HDAccount) => stack().marketplace.as(account);
const mined = (hash: Promise<Hex>) => stack().marketplace.mined(hash);
/** What a call that must fail rejected with. */
const rejectionOf = (call: Promise<unknown>) => call.catch((error: unknown) => error);

async function createListing(seedText: string, model: number): Promise<Hex> {
  const seed = seedOf(seedText);
  await mined(marketAs(creator).write.createListing([seed, model, PRICE, METADATA_URI]));
  return marketAs(creator).read.deriveListingId([creator.address, seed]);
}

describe("ServiceMarketplace on anvil", () => {
  it("is deployed with its authority, an operator apart from it and the default 2.5% fee", async () => {
    const market = marketAs(renter);
    expect(stack().deployment.chainId).toBe(31337);
    expect(stack().deployment.startBlock).toBeGreaterThan(0);
    expect(await market.read.authority()).toBe(authority.address);
    expect(await market.read.operator()).toBe(operator.address);
    expect(operator.address).not.toBe(authority.address);
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
    expect({ escrow, accruedFees }).toEqual({ escrow: shareOf(PRICE), accruedFees: feeOf(PRICE) });
  });

  it("sells a 30-day subscription that expires 30 days after purchase", async () => {
    const listingId = await createListing("subscription", SUBSCRIPTION);
    const market = marketAs(renter);
    const receipt = await mined(
      market.write.purchaseSubscription([listingId, THIRTY_DAYS], { value: PRICE }),
    );
    const block = await stack().marketplace.publicClient.getBlock({
      blockNumber: receipt.blockNumber,
    });

    const [, purchasedAt, expiresAt] = await market.read.credentials([listingId, renter.address]);
    expect(BigInt(purchasedAt)).toBe(block.timestamp);
    expect(BigInt(expiresAt)).toBe(block.timestamp + THIRTY_DAYS);
    expect(await market.read.isCredentialValid([listingId, renter.address])).toBe(true);
  });

  it("sells a per-task balance that each run id debits once", async () => {
    const listingId = await createListing("per-task", PER_QUERY);
    await mined(marketAs(renter).write.purchasePerQuery([listingId, PRICE], { value: PRICE * 2n }));
    const asAuthority = marketAs(authority);
    await mined(asAuthority.write.consumeQuery([listingId, renter.address, 1n, PRICE, true]));

    const [balance] = await asAuthority.read.perQueryBalances([listingId, renter.address]);
    expect(balance).toBe(PRICE);
    expect(await asAuthority.read.getAccessState([listingId, renter.address])).toMatchObject({
      isValid: true,
      hasCredential: true,
      balance: PRICE,
      price: PRICE,
      agreedPrice: PRICE,
    });

    const replay = await rejectionOf(
      asAuthority.simulate.consumeQuery([listingId, renter.address, 1n, PRICE, true], {
        account: authority,
      }),
    );
    expect(contractErrorName(replay)).toBe("RunAlreadyRecorded");
  });

  it("decodes custom-error reverts by name, with their arguments", async () => {
    const listingId = await createListing("errors", ONE_TIME);
    const market = marketAs(renter);
    const underpaid = await rejectionOf(
      market.simulate.purchaseOneTime([listingId], { account: renter, value: PRICE - 1n }),
    );

    expect(contractErrorName(underpaid)).toBe("IncorrectPayment");
    const reverted = (underpaid as BaseError).walk(
      (cause) => cause instanceof ContractFunctionRevertedError,
    ) as ContractFunctionRevertedError;
    expect(reverted.data?.args).toEqual([PRICE - 1n, PRICE]);

    await mined(market.write.purchaseOneTime([listingId], { value: PRICE }));
    const twice = await rejectionOf(market.write.purchaseOneTime([listingId], { value: PRICE }));
    expect(contractErrorName(twice)).toBe("CredentialAlreadyExists");
  });
});
