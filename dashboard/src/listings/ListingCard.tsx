import type { ListingSummary } from "@service/sdk";
import { Link } from "../routing/Link.tsx";
import { ListingFacts } from "./ListingFacts.tsx";

export function ListingCard({ listing }: { listing: ListingSummary }) {
  return (
    <li className="card">
      <h3>
        <Link href={`/listings/${listing.id}`}>{listing.title}</Link>
      </h3>
      <p>{listing.description}</p>
      <ListingFacts listing={listing} />
    </li>
  );
}
