import { serviceMarketplaceAbi } from "../../../lib/contracts/serviceMarketplace.ts";

export { parseApiListingId, toApiListingId } from "../../../lib/ids/listingId.ts";
export { serviceMarketplaceAbi };

const DAY_SECONDS = 86_400;

/** The subscription periods the contract sells, in days. */
export const SUBSCRIPTION_DAYS = [30, 90, 365] as const;

/** The contract's quote for `days` of subscription: the price is per 30 days. */
export function subscriptionValue(priceWei: bigint, days: number): bigint {
  return (priceWei * BigInt(days * DAY_SECONDS)) / BigInt(30 * DAY_SECONDS);
}

export function subscriptionSeconds(days: number): bigint {
  return BigInt(days * DAY_SECONDS);
}
