import type { Review, ReviewRequest } from "@service/sdk";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";

const RATINGS = [1, 2, 3, 4, 5] as const;
const MAX_TEXT_LENGTH = 2_000;

/**
 * The renter's review of the listing. The API decides who may review (a renter who completed a run;
 * never the creator) and says why when it refuses; a second review replaces the first.
 */
export function ReviewForm({ listingId }: { listingId: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [rating, setRating] = useState<number>();
  const [text, setText] = useState("");
  const publish = useMutation<Review, unknown, ReviewRequest>({
    mutationFn: (review) => client.listings.review(listingId, review),
    onSuccess: () =>
      Promise.all(
        [["reviews", listingId], ["listing", listingId], ["listings"]].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (rating !== undefined) publish.mutate({ rating, text });
  };

  return (
    <form onSubmit={submit} className="playground review-form" aria-labelledby="review-form-title">
      <h3 id="review-form-title">Your review</h3>
      <fieldset>
        <legend>Rating</legend>
        {RATINGS.map((value) => (
          <label key={value} className="inline">
            <input
              type="radio"
              name="rating"
              value={value}
              required
              checked={rating === value}
              onChange={() => setRating(value)}
            />
            {value} {value === 1 ? "star" : "stars"}
          </label>
        ))}
      </fieldset>
      <label>
        Review
        <textarea
          value={text}
          onChange={(event) => setText(event.target.value)}
          required
          rows={4}
          maxLength={MAX_TEXT_LENGTH}
        />
      </label>
      <p className="hint">A later review replaces your earlier one.</p>
      <div>
        <button type="submit" disabled={publish.isPending}>
          {publish.isPending ? "Publishing…" : "Publish review"}
        </button>
      </div>
      <div aria-live="polite">
        {publish.isSuccess && <p>Your review is published.</p>}
        <ErrorMessage error={publish.error} />
      </div>
    </form>
  );
}
