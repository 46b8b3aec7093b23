// The indexer's rows as tests read them back through the views.
import { and, eq } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { METADATA_URI } from "../../devStack/marketplace.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import type { RentalModel } from "../../lib/marketplace/vocabulary.ts";

const { listing, credential } = projections;

/** An address as the projections store it. */
export const lower = (address: Address) => address.toLowerCase() as Hex;

export const listingRows = (db: Database, id: Hex) =>
  db.select().from(listing).where(eq(listing.id, id));

export const credentialRows = (db: Database, listingId: Hex, buyer: Address) =>
  db
    .select()
    .from(credential)
    .where(and(eq(credential.listingId, listingId), eq(credential.buyer, lower(buyer))));

export type ListingRow = Awaited<ReturnType<typeof listingRows>>[number];
export type CredentialRow = Awaited<ReturnType<typeof credentialRows>>[number];

/** A listing's row as `createListing` at `timestamp` leaves it. */
export function newListingRow(listing: {
  id: Hex;
  creator: Address;
  rentalModel: RentalModel;
  price: bigint;
  timestamp: bigint;
}): ListingRow {
  return {
    id: listing.id,
    creator: lower(listing.creator),
    rentalModel: listing.rentalModel,
    price: listing.price,
    status: "active",
    metadataUri: METADATA_URI,
    publishedAt: listing.timestamp,
    updatedAt: listing.timestamp,
    escrow: 0n,
    accruedFees: 0n,
    totalEarned: 0n,
    totalWithdrawn: 0n,
    credentialCount: 0,
    runCount: 0,
    failedRunCount: 0,
  };
}

/**
 * A credential's row as `buyer`'s purchase on `listing` leaves it (a per-task one: `balance`, and
 * `agreedPrice`, the listing's price at the deposit).
 */
export function newCredentialRow(
  listing: { id: Hex; rentalModel: RentalModel },
  buyer: Address,
  purchase: {
    timestamp: bigint;
    totalPaid: bigint;
    expiresAt?: bigint;
    balance?: bigint;
    agreedPrice?: bigint;
  },
): CredentialRow {
  return {
    listingId: listing.id,
    buyer: lower(buyer),
    rentalModel: listing.rentalModel,
    purchasedAt: purchase.timestamp,
    expiresAt: purchase.expiresAt ?? null,
    isRevoked: false,
    balance: purchase.balance ?? 0n,
    agreedPrice: purchase.agreedPrice ?? 0n,
    exitReclaimableAt: null,
    totalPaid: purchase.totalPaid,
    tasksConsumed: 0,
    updatedAt: purchase.timestamp,
  };
}
