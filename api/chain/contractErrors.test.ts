import { parseEther } from "viem";
import { describe, expect, it } from "vitest";
import { ONE_TIME, SUBSCRIPTION, seedOf, THIRTY_DAYS } from "../../devStack/marketplace.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { deriveListingId } from "../../lib/ids/listingId.ts";
import { useStack } from "../../test/support/useStack.ts";
import { apiErrorOfRevert, CONTRACT_ERROR_CODES } from "./contractErrors.ts";

const stack = useStack({ chain: true, postgres: false });
const creator = devAccount(2);
const renter = devAccount(3);

/** The error a marketplace call reverts with, as viem throws it. */
async function revertOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error("the call did not revert");
    },
    (error: unknown) => error,
  );
}

describe("contract errors as API errors", () => {
  it("carry the API code of the table and the raw contract error", async () => {
    const unknownListing = deriveListingId(creator.address, seedOf("never listed"));
    const error = await revertOf(
      stack()
        .marketplace.as(renter)
        .simulate.purchaseOneTime([unknownListing], { account: renter, value: parseEther("0.01") }),
    );
    const apiError = apiErrorOfRevert(error, "No such listing");
    expect(apiError).toMatchObject({
      code: "listing_not_found",
      status: 404,
      message: "No such listing",
      onChainError: { contract: "ServiceMarketplace", error: "ListingNotFound" },
    });
  });

  it("map a credential the renter lacks to credential_not_found", async () => {
    const seed = seedOf("listed");
    const market = stack().marketplace;
    await market.mined(
      market.as(creator).write.createListing([seed, ONE_TIME, parseEther("0.01"), "ipfs://x"]),
    );
    const listingId = deriveListingId(creator.address, seed);
    const error = await revertOf(
      market.as(creator).simulate.revokeAccess([listingId, renter.address], { account: creator }),
    );
    expect(apiErrorOfRevert(error, "No credential")).toMatchObject({
      code: CONTRACT_ERROR_CODES.CredentialNotFound,
      status: 403,
      onChainError: { contract: "ServiceMarketplace", error: "CredentialNotFound" },
    });
  });

  it("map a lapsed subscription, as requireAccess refuses it, to credential_expired", async () => {
    const seed = seedOf("subscribed");
    const market = stack().marketplace;
    await market.mined(
      market.as(creator).write.createListing([seed, SUBSCRIPTION, parseEther("0.01"), "ipfs://x"]),
    );
    const listingId = deriveListingId(creator.address, seed);
    const value = await market.as(renter).read.subscriptionQuote([listingId, THIRTY_DAYS]);
    await market.mined(
      market.as(renter).write.purchaseSubscription([listingId, THIRTY_DAYS], { value }),
    );
    await market.as(renter).read.requireAccess([listingId, renter.address]);

    await rpcRequest(stack().anvil.rpcUrl, "evm_increaseTime", [Number(THIRTY_DAYS)]);
    await rpcRequest(stack().anvil.rpcUrl, "evm_mine");
    const error = await revertOf(market.as(renter).read.requireAccess([listingId, renter.address]));
    expect(apiErrorOfRevert(error, "Expired")).toMatchObject({
      code: "credential_expired",
      status: 403,
      onChainError: { contract: "ServiceMarketplace", error: "CredentialExpired" },
    });
  });

  it("leave anything that is not a revert alone", () => {
    expect(apiErrorOfRevert(new Error("socket hang up"), "x")).toBeUndefined();
  });
});
