import { CreatorActivity } from "../creators/CreatorActivity.tsx";
import { MyListingCard } from "../creators/MyListingCard.tsx";
import { useMyListings } from "../creators/useMyListings.ts";
import { Link } from "../routing/Link.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

/** The connected creator's listings, kept current by the API as the indexer records changes. */
export function MyListingsPage() {
  const { listings, error } = useMyListings();
  return (
    <section aria-labelledby="my-listings-title">
      <PageHeading id="my-listings-title" title="My listings" />
      {!listings && !error && <Loading label="Loading your listings" />}
      <ErrorMessage error={error} />
      {listings?.length === 0 && (
        <p>
          You list no agent yet: <Link href="/register">register one</Link>.
        </p>
      )}
      {listings && listings.length > 0 && <CreatorActivity listings={listings} />}
      <ul className="cards">
        {listings?.map((listing) => (
          <MyListingCard key={listing.id} listing={listing} />
        ))}
      </ul>
    </section>
  );
}
