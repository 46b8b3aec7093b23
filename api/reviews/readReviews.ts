import { and, count, desc, eq } from "drizzle-orm";
import type { Hex } from "viem";
import { reviews } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import type { ReviewRow } from "./saveReview.ts";

/** A page of the listing's reviews, the last written first, and how many it has. */
export async function reviewPage(
  db: Database,
  onChainListingId: Hex,
  page: { limit: number; offset: number },
) {
  const listing = eq(reviews.onChainListingId, onChainListingId.toLowerCase());
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(reviews)
      .where(listing)
      .orderBy(desc(reviews.updatedAt), desc(reviews.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(reviews).where(listing),
  ]);
  return { rows, total: counted?.total ?? 0 };
}

/** One review of the listing, or undefined. */
export async function findReview(db: Database, onChainListingId: Hex, reviewId: string) {
  const [row] = await db
    .select()
    .from(reviews)
    .where(
      and(eq(reviews.id, reviewId), eq(reviews.onChainListingId, onChainListingId.toLowerCase())),
    );
  return row;
}

/** A review as the API shows it. */
export function reviewResponse(row: ReviewRow) {
  return {
    id: row.id,
    listing_id: toApiListingId(row.onChainListingId as Hex),
    wallet: row.wallet,
    rating: row.rating,
    text: row.text,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    reply:
      row.reply === null
        ? null
        : { text: row.reply, created_at: (row.repliedAt as Date).toISOString() },
  };
}
