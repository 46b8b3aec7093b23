// The indexer's rows as tests read them back through the views.
import { and, eq } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { type Database, projections } from "../../lib/db/projections.ts";

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
