import type { ListingSummary } from "@service/sdk";
import { Link } from "../routing/Link.tsx";
import { RENTAL_MODEL_NAMES } from "../ui/formatting.ts";
import { priceText } from "./priceText.ts";

export function ListingCard({ listing }: { listing: ListingSummary }) {
  return (
    <li className="card">
      <h3>
        <Link href={`/listings/${listing.id}`}>{listing.title}</Link>
      </h3>
      <p>{listing.description}</p>
      <dl className="facts">
        <dt>Price</dt>
        <dd>{priceText(listing)}</dd>
        <dt>Rental</dt>
        <dd>{RENTAL_MODEL_NAMES[listing.rental_model]}</dd>
        <dt>Category</dt>
        <dd>{listing.category.join(", ")}</dd>
        <dt>Runs</dt>
        <dd>
          {listing.run_count} ({Math.round(listing.success_rate * 100)}% succeeded)
        </dd>
        <dt>Creator</dt>
        <dd>{listing.creator.display_name}</dd>
      </dl>
    </li>
  );
}
