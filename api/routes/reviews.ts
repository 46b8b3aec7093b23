import type { Context } from "hono";
import { Hono } from "hono";
import type { Hex } from "viem";
import { z } from "zod/v4";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { isReviewId } from "../../lib/ids/randomIds.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";
import { MAX_REVIEW_TEXT_LENGTH, REVIEW_WRITES_PER_MINUTE } from "../limits.ts";
import { publishedListing } from "../listings/catalogueReads.ts";
import { rateLimitWindow } from "../middleware/rateLimit.ts";
import { findReview, reviewPage, reviewResponse } from "../reviews/readReviews.ts";
import { mayReview } from "../reviews/reviewRight.ts";
import { replyToReview, saveReview } from "../reviews/saveReview.ts";
import { pageSchema, parseJsonBody, parseQuery } from "../validation.ts";

/** C0 and C1 control characters but tab, line feed and carriage return (NUL among them). */
const CONTROL_CHARACTERS = /(?![\t\n\r])\p{Cc}/u;

const reviewText = z
  .string()
  .refine((text) => text.trim() !== "", "must not be blank")
  .refine(
    (text) => Array.from(text).length <= MAX_REVIEW_TEXT_LENGTH,
    `must be at most ${MAX_REVIEW_TEXT_LENGTH} characters`,
  )
  .refine((text) => !CONTROL_CHARACTERS.test(text), "must not contain control characters");

export const reviewBody = z.strictObject({
  rating: z.number().int().min(1).max(5),
  text: reviewText,
});

export const replyBody = z.strictObject({ text: reviewText });

export const reviewPageQuery = z.object(pageSchema);

export const reviewRoutes = new Hono<AppEnv>();

/** A page of the listing's reviews, the last written first. */
reviewRoutes.get("/:id/reviews", async (c) => {
  const { onChainId } = await listingOf(c);
  const page = parseQuery(c, reviewPageQuery);
  const { rows, total } = await reviewPage(c.get("deps").db, onChainId, page);
  return c.json({ reviews: rows.map(reviewResponse), total, ...page });
});

/** The caller's review of the listing, written the first time and replaced by each edit after. */
reviewRoutes.post("/:id/reviews", async (c) => {
  const { onChainId, creator } = await listingOf(c);
  const wallet = callerWallet(c);
  const { rating, text } = await parseJsonBody(c, reviewBody);
  await countReviewWrite(c);
  const { db } = c.get("deps");
  if (!(await mayReview(db, { onChainListingId: onChainId, creator }, wallet))) {
    throw new ApiError(
      "review_not_allowed",
      "Only a wallet that holds or held a credential for this listing and completed a run on it may review it; its creator may not",
    );
  }
  const saved = await saveReview(db, { onChainListingId: onChainId, wallet, rating, text });
  // The notice of the new rating reaches the other processes; this one shows it to its next request.
  c.get("deps").catalogue.changed();
  return c.json(reviewResponse(saved.review));
});

/** The listing creator's one reply to a review. */
reviewRoutes.post("/:id/reviews/:review_id/reply", async (c) => {
  const { onChainId, creator } = await listingOf(c);
  const reviewId = c.req.param("review_id");
  const { text } = await parseJsonBody(c, replyBody);
  await countReviewWrite(c);
  const { db } = c.get("deps");
  if (creator.toLowerCase() !== callerWallet(c).toLowerCase()) {
    throw new ApiError("forbidden", "Only the listing's creator may reply to its reviews");
  }
  const replied = isReviewId(reviewId)
    ? await replyToReview(db, { reviewId, onChainListingId: onChainId, text })
    : undefined;
  if (replied) return c.json(reviewResponse(replied));
  if (isReviewId(reviewId) && (await findReview(db, onChainId, reviewId))) {
    throw new ApiError("review_already_replied", "This review already has the creator's reply");
  }
  throw new ApiError("review_not_found", "This listing has no review with this id");
});

/** The route's published listing, by its `lst_` id: its on-chain id and creator. */
async function listingOf(c: Context<AppEnv>): Promise<{ onChainId: Hex; creator: Hex }> {
  const onChainId = parseApiListingId(c.req.param("id") ?? "");
  if (!onChainId) throw new ApiError("invalid_listing_id", "Listing ids look like lst_<64 hex>");
  const listing = await publishedListing(c.get("deps"), onChainId);
  if (!listing) throw new ApiError("listing_not_found", "No published listing has this id");
  return { onChainId, creator: listing.creator };
}

/** A review, edit or reply spends the wallet's review budget, shared by every API process. */
async function countReviewWrite(c: Context<AppEnv>) {
  const { budgets, now } = c.get("deps");
  const { nowSeconds, windowStart, reset } = rateLimitWindow(now());
  const subject = `reviews:${callerWallet(c).toLowerCase()}`;
  const { count } = await budgets.spend(subject, REVIEW_WRITES_PER_MINUTE, windowStart, {
    leaseAhead: false,
  });
  if (count > REVIEW_WRITES_PER_MINUTE) {
    throw new ApiError(
      "rate_limit_exceeded",
      `More than ${REVIEW_WRITES_PER_MINUTE} reviews and replies in a minute; retry later`,
      { retryAfterSeconds: Math.max(1, reset - nowSeconds) },
    );
  }
}
