// The contract's enums as the projections spell them.

const RENTAL_MODELS = ["one_time", "subscription", "per_query"] as const;
const LISTING_STATUSES = ["active", "paused", "closed"] as const;

export type RentalModel = (typeof RENTAL_MODELS)[number];
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export function rentalModelName(model: number): RentalModel {
  const name = RENTAL_MODELS[model];
  if (!name) throw new Error(`unknown rental model ${model}`);
  return name;
}

/** On-chain status 0 is "no listing" and never appears in an event. */
export function listingStatusName(status: number): ListingStatus {
  const name = LISTING_STATUSES[status - 1];
  if (!name) throw new Error(`unknown listing status ${status}`);
  return name;
}
