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
};

/**
 * The status of a credential at `nowSeconds` (the chain's time), by the contract's own rule
 * (`getAccessState`): a subscription is valid while `expiresAt > now`, a per-task balance while it
 * covers one task, and nothing is valid once revoked or its listing is closed.
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
  if (facts.rentalModel === "per_query" && facts.balance < facts.price) return "low_balance";
  return "active";
}
