import { and, eq, isNull, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { agents, listingRatings, reviews } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { newReviewId } from "../../lib/ids/randomIds.ts";
import { enqueueWebhook } from "../../lib/webhooks/enqueueWebhook.ts";
import { reviewResponse } from "./readReviews.ts";

export type ReviewRow = typeof reviews.$inferSelect;

/**
 * Writes the wallet's review of the listing, a new one or over its last, its listing's rating and
 * the `listing.reviewed` event for its creator's webhooks in the same transaction. Reviews of one
 * listing are written one at a time, under its ratings row's lock, so that the rating counts every
 * review committed before it.
 */
export async function saveReview(
  db: Database,
  review: { onChainListingId: Hex; wallet: Address; rating: number; text: string },
): Promise<{ review: ReviewRow; created: boolean }> {
  const onChainListingId = review.onChainListingId.toLowerCase();
  const wallet = review.wallet.toLowerCase();
  return db.transaction(async (tx) => {
    await tx
      .insert(listingRatings)
      .values({ onChainListingId, ratingSum: 0, reviewCount: 0 })
      .onConflictDoNothing();
    await tx
      .select({ id: listingRatings.onChainListingId })
      .from(listingRatings)
      .where(eq(listingRatings.onChainListingId, onChainListingId))
      .for("update");
    const [earlier] = await tx
      .select({ id: reviews.id })
      .from(reviews)
      .where(and(eq(reviews.onChainListingId, onChainListingId), eq(reviews.wallet, wallet)));
    const [saved] = await tx
      .insert(reviews)
      .values({
        id: newReviewId(),
        onChainListingId,
        wallet,
        rating: review.rating,
        text: review.text,
      })
      .onConflictDoUpdate({
        target: [reviews.onChainListingId, reviews.wallet],
        set: { rating: review.rating, text: review.text, updatedAt: sql`now()` },
      })
      .returning();
    await tx.execute(sql`
      update ${listingRatings}
      set (rating_sum, review_count) = (
        select coalesce(sum(${reviews.rating}), 0), count(*) from ${reviews}
        where ${reviews.onChainListingId} = ${onChainListingId})
      where ${listingRatings.onChainListingId} = ${onChainListingId}`);
    const written = saved as ReviewRow;
    const [listing] = await tx
      .select({ creator: agents.creator, title: agents.title })
      .from(agents)
      .where(eq(agents.onChainListingId, onChainListingId));
    if (listing) {
      await enqueueWebhook(tx, {
        wallet: listing.creator,
        type: "listing.reviewed",
        eventKey: `review:${written.id}:${written.updatedAt.getTime()}`,
        data: {
          id: toApiListingId(onChainListingId as Hex),
          title: listing.title,
          review: reviewResponse(written),
        },
      });
    }
    return { review: written, created: !earlier };
  });
}

/** The creator's reply to a review of its listing; undefined if the review already has one. */
export async function replyToReview(
  db: Database,
  reply: { reviewId: string; onChainListingId: Hex; text: string },
): Promise<ReviewRow | undefined> {
  const [saved] = await db
    .update(reviews)
    .set({ reply: reply.text, repliedAt: sql`now()` })
    .where(
      and(
        eq(reviews.id, reply.reviewId),
        eq(reviews.onChainListingId, reply.onChainListingId.toLowerCase()),
        isNull(reviews.reply),
      ),
    )
    .returning();
  return saved;
}
