import type { Hex } from "viem";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { credentialStatus, nextDebit } from "../../lib/marketplace/credentialStatus.ts";
import type { ListingStatus, RentalModel } from "../../lib/marketplace/vocabulary.ts";

/** A credential and its listing, as the followers of projections select them (amounts as text). */
export type CredentialRow = {
  listing_id: Hex;
  title: string | null;
  rental_model: RentalModel;
  listing_status: ListingStatus;
  is_revoked: boolean;
  expires_at: string | null;
  balance: string;
  price: string;
  agreed_price: string;
  exit_reclaimable_at: string | null;
  purchased_at: string;
};

export function isoFromSeconds(seconds: string | bigint): string {
  return new Date(Number(seconds) * 1000).toISOString();
}

/**
 * A credential event's `data`: the credential as `GET /v1/credentials` lists it, its status at
 * `nowSeconds` (the chain's time), and what a per-task balance holds against what its next run costs.
 */
export function credentialData(row: CredentialRow, nowSeconds: bigint) {
  const facts = {
    rentalModel: row.rental_model,
    listingStatus: row.listing_status,
    isRevoked: row.is_revoked,
    expiresAt: BigInt(row.expires_at ?? 0),
    balance: BigInt(row.balance),
    price: BigInt(row.price),
    agreedPrice: BigInt(row.agreed_price),
    exiting: row.exit_reclaimable_at !== null,
  };
  const perTask = row.rental_model === "per_query";
  return {
    listing_id: toApiListingId(row.listing_id),
    listing_title: row.title,
    rental_model: row.rental_model,
    status: credentialStatus(facts, nowSeconds),
    purchased_at: isoFromSeconds(row.purchased_at),
    expires_at: row.expires_at === null ? null : isoFromSeconds(row.expires_at),
    on_chain_listing_id: row.listing_id,
    ...(perTask && {
      balance_wei: row.balance,
      next_run_price_wei: nextDebit(facts).toString(),
    }),
  };
}
