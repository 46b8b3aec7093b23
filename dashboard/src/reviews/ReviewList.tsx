import type { Review } from "@service/sdk";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useClient } from "../session/SessionContext.tsx";
import { DateTime } from "../ui/DateTime.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";

const PAGE_SIZE = 10;

/** The listing's reviews, the last written first, a page at a time. */
export function ReviewList({ listingId }: { listingId: string }) {
  const client = useClient();
  const [offset, setOffset] = useState(0);
  const page = useQuery({
    queryKey: ["reviews", listingId, offset],
    queryFn: () => client.listings.reviews(listingId, { limit: PAGE_SIZE, offset }),
    placeholderData: keepPreviousData,
  });
  if (page.isPending) return <Loading label="Loading the reviews" />;
  if (page.error) return <ErrorMessage error={page.error} />;
  const { reviews, total } = page.data;
  if (total === 0) return <p>No reviews yet.</p>;
  return (
    <>
      <ul className="reviews">
        {reviews.map((review) => (
          <ReviewItem key={review.id} review={review} />
        ))}
      </ul>
      {total > PAGE_SIZE && (
        <div className="pager">
          <button
            type="button"
            disabled={offset === 0}
            onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
          >
            Newer reviews
          </button>
          <button
            type="button"
            disabled={offset + PAGE_SIZE >= total}
            onClick={() => setOffset(offset + PAGE_SIZE)}
          >
            Older reviews
          </button>
        </div>
      )}
    </>
  );
}

function ReviewItem({ review }: { review: Review }) {
  return (
    <li className="review">
      <p>
        <strong>Rated {review.rating} of 5</strong> by <code>{shortWallet(review.wallet)}</code>,{" "}
        <DateTime iso={review.updated_at} />
      </p>
      <p className="review-text">{review.text}</p>
      {review.reply && (
        <blockquote>
          <p>
            The creator replied, <DateTime iso={review.reply.created_at} />:
          </p>
          <p className="review-text">{review.reply.text}</p>
        </blockquote>
      )}
    </li>
  );
}

const shortWallet = (wallet: string) => `${wallet.slice(0, 6)}…${wallet.slice(-4)}`;
