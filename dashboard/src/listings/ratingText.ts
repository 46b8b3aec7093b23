import type { ListingSummary } from "@service/sdk";

/** The listing's average rating and how many reviews make it. */
export function ratingText({ rating, review_count }: ListingSummary): string {
  if (review_count === 0) return "No reviews yet";
  return `${rating.toFixed(1)} of 5 (${review_count} ${review_count === 1 ? "review" : "reviews"})`;
}
