import type { Context } from "hono";
import type { Hex } from "viem";
import { z } from "zod/v4";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { isReviewId } from "../../lib/ids/randomIds.ts";
import { ApiError } from "../http/errors.ts";
import { pageSchema, parseJsonBody, parseQuery } from "../http/validation.ts";
import { MAX_REVIEW_TEXT_LENGTH, REVIEW_WRITES_PER_MINUTE } from "../limits.ts";
import { publishedListing } from "../listings/catalogueReads.ts";
import { rateLimitWindow } from "../middleware/rateLimit.ts";
import { AUTHENTICATED, LISTING_ID, NAMED_LISTING } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { type AppEnv, callerWallet } from "../process/context.ts";
import { findReview, reviewPage, reviewResponse } from "../reviews/readReviews.ts";
import { mayReview } from "../reviews/reviewRight.ts";
import { replyToReview, saveReview } from "../reviews/saveReview.ts";

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

export const reviewRoutes = new DescribedRoutes("/v1/listings");

/** A page of the listing's reviews, the last written first. */
reviewRoutes.get(
  "/:id/reviews",
  {
    tag: "Listings",
    summary: "List a listing's reviews",
    description: "The last written (or edited) first.",
    security: "bearer",
    scope: "read",
    pathParameters: { id: LISTING_ID },
    query: reviewPageQuery,
    answer: { status: 200, description: "A page of reviews", schema: answers.reviewPage },
    errors: ["invalid_request", ...NAMED_LISTING, ...AUTHENTICATED],
  },
  async (c, reply) => {
    const { onChainId } = await listingOf(c);
    const page = parseQuery(c, reviewPageQuery);
    const { rows, total } = await reviewPage(c.get("deps").db, onChainId, page);
    return reply(c, { reviews: rows.map(reviewResponse), total, ...page });
  },
);

/** The caller's review of the listing, written the first time and replaced by each edit after. */
reviewRoutes.post(
  "/:id/reviews",
  {
    tag: "Listings",
    summary: "Review a listing, or edit the caller's review",
    description:
      "One review per wallet and listing: posting again replaces its rating and text. Only a wallet that holds or held a credential for the listing and completed a run on it may review it, never its creator. Reviews, edits and replies count against a budget of a few per minute per wallet.",
    security: "bearer",
    scope: "run",
    pathParameters: { id: LISTING_ID },
    body: reviewBody,
    answer: { status: 200, description: "The review as saved", schema: answers.review },
    errors: ["invalid_request", ...NAMED_LISTING, "review_not_allowed", ...AUTHENTICATED],
  },
  async (c, reply) => {
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
    return reply(c, reviewResponse(saved.review));
  },
);

/** The listing creator's one reply to a review. */
reviewRoutes.post(
  "/:id/reviews/:review_id/reply",
  {
    tag: "Listings",
    summary: "Reply to a review (the listing's creator only, once)",
    security: "bearer",
    scope: "create",
    pathParameters: { id: LISTING_ID, review_id: "Review id: `rev_` and 24 hex digits" },
    body: replyBody,
    answer: { status: 200, description: "The review with its reply", schema: answers.review },
    errors: [
      "invalid_request",
      ...NAMED_LISTING,
      "review_not_found",
      "review_already_replied",
      ...AUTHENTICATED,
    ],
  },
  async (c, reply) => {
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
    if (replied) return reply(c, reviewResponse(replied));
    if (isReviewId(reviewId) && (await findReview(db, onChainId, reviewId))) {
      throw new ApiError("review_already_replied", "This review already has the creator's reply");
    }
    throw new ApiError("review_not_found", "This listing has no review with this id");
  },
);

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
