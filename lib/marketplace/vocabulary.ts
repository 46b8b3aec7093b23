// The marketplace's words, defined once: the contract's enums as the API and projections spell them,
// and the categories a listing may carry.

/** In the contract's `RentalModel` order: the on-chain value is the index. */
export const RENTAL_MODELS = ["one_time", "subscription", "per_query"] as const;
/** In the contract's `ListingStatus` order from 1: on-chain 0 is "no listing". */
export const LISTING_STATUSES = ["active", "paused", "closed"] as const;
export const CREDENTIAL_STATUSES = ["active", "expired", "low_balance", "revoked"] as const;
/** The block tags a valid credential is checked at, shallowest first: `safe` and `finalized` lag the head. */
export const CREDENTIAL_FINALITIES = ["latest", "safe", "finalized"] as const;
export const CATEGORIES = ["finance", "legal", "coding", "research", "sales", "content"] as const;

export type RentalModel = (typeof RENTAL_MODELS)[number];
export type ListingStatus = (typeof LISTING_STATUSES)[number];
export type CredentialStatus = (typeof CREDENTIAL_STATUSES)[number];
export type CredentialFinality = (typeof CREDENTIAL_FINALITIES)[number];
export type Category = (typeof CATEGORIES)[number];

export function rentalModelName(onChainModel: number): RentalModel {
  const name = RENTAL_MODELS[onChainModel];
  if (!name) throw new Error(`unknown rental model ${onChainModel}`);
  return name;
}

export function listingStatusName(onChainStatus: number): ListingStatus {
  const name = LISTING_STATUSES[onChainStatus - 1];
  if (!name) throw new Error(`unknown listing status ${onChainStatus}`);
  return name;
}

/** The subscription lengths the contract accepts, in seconds: 30, 90 and 365 days. */
export const SUBSCRIPTION_DURATIONS = [2_592_000, 7_776_000, 31_536_000] as const;
/** The contract's subscription price is per this many seconds (30 days). */
export const SUBSCRIPTION_PERIOD = 2_592_000;
