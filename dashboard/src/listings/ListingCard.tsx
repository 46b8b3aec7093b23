import type { ListingSummary } from "@service/sdk";
import { Link } from "../routing/Link.tsx";
import { RENTAL_MODEL_NAMES } from "../ui/formatting.ts";
import { priceText } from "./priceText.ts";
import { runsText } from "./runsText.ts";

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
        <dd>{runsText(listing)}</dd>
        <dt>Creator</dt>
        <dd>{listing.creator.display_name}</dd>
      </dl>
    </li>
  );
}
