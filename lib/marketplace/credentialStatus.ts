import type { CredentialStatus, ListingStatus, RentalModel } from "./vocabulary.ts";

/** What the chain records of a credential and its listing; projections and `getAccessState` alike. */
export type CredentialFacts = {
  rentalModel: RentalModel;
  listingStatus: ListingStatus;
  isRevoked: boolean;
  /** Unix seconds; meaningful for subscriptions only. */
  expiresAt: bigint;
  /** Wei; meaningful for per-task credentials only. */
  balance: bigint;
  /** The listing's price in wei: per task for per-task credentials. */
  price: bigint;
  /** Wei per task the renter agreed to at their last deposit; meaningful for per-task credentials only. */
  agreedPrice: bigint;
  /** Per-task only: the renter asked for the balance back (`requestExit`); it starts no run. */
  exiting: boolean;
};

/**
 * What the next run costs a per-task balance, as `consumeQuery` debits it: the lower of the price the
 * renter agreed to and the listing's current price (a cut applies at once, a raise after a deposit).
 */
export function nextDebit(facts: Pick<CredentialFacts, "price" | "agreedPrice">): bigint {
  if (facts.agreedPrice < facts.price) return facts.agreedPrice;
  return facts.price;
}

/**
 * The status of a credential at `nowSeconds` (the chain's time), by the contract's own rule
 * (`getAccessState`): a subscription is valid while `expiresAt > now`, a per-task balance while it
 * covers the next run's debit and no exit is pending, and nothing is valid once revoked or its
 * listing is closed. A balance being exited is `low_balance`: a top-up ends the exit and runs again.
 */
export function credentialStatus(facts: CredentialFacts, nowSeconds: bigint): CredentialStatus;
export function credentialStatus(
  facts: CredentialFacts | undefined,
  nowSeconds: bigint,
): CredentialStatus | "not_found";
export function credentialStatus(
  facts: CredentialFacts | undefined,
  nowSeconds: bigint,
): CredentialStatus | "not_found" {
  if (!facts) return "not_found";
  if (facts.isRevoked || facts.listingStatus === "closed") return "revoked";
  if (facts.rentalModel === "subscription" && facts.expiresAt <= nowSeconds) return "expired";
  if (facts.rentalModel === "per_query" && (facts.exiting || facts.balance < nextDebit(facts))) {
    return "low_balance";
  }
  return "active";
}
