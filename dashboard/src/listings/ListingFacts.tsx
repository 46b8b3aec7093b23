import type { Listing, ListingSummary } from "@service/sdk";
import { DateTime } from "../ui/DateTime.tsx";
import { RENTAL_MODEL_NAMES } from "../ui/formatting.ts";
import { priceText } from "./priceText.ts";
import { ratingText } from "./ratingText.ts";
import { runsText } from "./runsText.ts";

/**
 * A listing's facts as the catalogue's card shows them; a whole `Listing`, on its own page, adds its
 * status, the creator's listing count, when it was published and its id.
 */
export function ListingFacts({ listing }: { listing: ListingSummary | Listing }) {
  const whole = "published_at" in listing ? listing : undefined;
  return (
    <dl className="facts">
      <dt>Price</dt>
      <dd>{priceText(listing)}</dd>
      <dt>Rental</dt>
      <dd>{RENTAL_MODEL_NAMES[listing.rental_model]}</dd>
      {whole && (
        <>
          <dt>Status</dt>
          <dd>{whole.status}</dd>
        </>
      )}
      <dt>Category</dt>
      <dd>{listing.category.join(", ")}</dd>
      <dt>Runs</dt>
      <dd>{runsText(listing)}</dd>
      <dt>Rating</dt>
      <dd data-testid="rating">{ratingText(listing)}</dd>
      <dt>Creator</dt>
      <dd>
        {listing.creator.display_name}
        {whole && ` (${whole.creator.listing_count} listings)`}
      </dd>
      {whole && (
        <>
          <dt>Published</dt>
          <dd>
            <DateTime iso={whole.published_at} />
          </dd>
          <dt>Listing id</dt>
          <dd>
            <code>{whole.id}</code>
          </dd>
        </>
      )}
    </dl>
  );
}
