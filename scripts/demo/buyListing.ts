import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { type MarketplaceConnection, THIRTY_DAYS } from "../../devStack/marketplace.ts";
import { rentalModelName } from "../../lib/marketplace/vocabulary.ts";

/** Runs a per-task credential is bought for: its deposit is this many times the price. */
export const PER_TASK_RUNS = 10n;

/**
 * Gives `renter` a valid credential on a listing, unless it holds one: one-time access at its price,
 * 30 days of subscription at its quote (a lapsed one renewed), or a per-task balance of
 * `PER_TASK_RUNS` runs (an empty one topped up). Returns what it did, for the newcomer to read.
 */
export async function buyListing(
  market: MarketplaceConnection,
  renter: HDAccount,
  listing: Hex,
): Promise<string> {
  const contract = market.as(renter);
  const state = await contract.read.getAccessState([listing, renter.address]);
  if (state.listingStatus === 0) throw new Error(`no listing ${listing} on this chain`);
  const model = rentalModelName(state.model);
  if (state.isValid) return `already holds a valid ${model} credential`;
  if (state.isRevoked) throw new Error("the creator revoked this account's credential");
  const { price, hasCredential } = state;
  switch (model) {
    case "one_time":
      await market.mined(contract.write.purchaseOneTime([listing], { value: price }));
      return `bought one-time access for ${price} wei`;
    case "subscription": {
      const value = await contract.read.subscriptionQuote([listing, THIRTY_DAYS]);
      const buy = hasCredential
        ? contract.write.renewSubscription
        : contract.write.purchaseSubscription;
      await market.mined(buy([listing, THIRTY_DAYS], { value }));
      return `${hasCredential ? "renewed" : "bought"} a 30-day subscription for ${value} wei`;
    }
    case "per_query": {
      const value = price * PER_TASK_RUNS;
      const buy = hasCredential ? contract.write.topUpBalance : contract.write.purchasePerQuery;
      await market.mined(buy([listing, price], { value }));
      return `${hasCredential ? "topped up" : "bought"} a per-task balance of ${PER_TASK_RUNS} runs at ${price} wei each`;
    }
  }
}
