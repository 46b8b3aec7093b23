import { MyListingCard } from "../creators/MyListingCard.tsx";
import { useLiveMarketplace } from "../creators/useLiveMarketplace.ts";
import { useMyListingIds } from "../creators/useMyListingIds.ts";
import { Link } from "../routing/Link.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";

/** The connected creator's listings, kept current as the marketplace's events arrive. */
export function MyListingsPage() {
  useLiveMarketplace();
  const ids = useMyListingIds();
  return (
    <section aria-labelledby="my-listings-title">
      <h1 id="my-listings-title">My listings</h1>
      {ids.isPending && <Loading label="Loading your listings" />}
      <ErrorMessage error={ids.error} />
      {ids.data?.length === 0 && (
        <p>
          You list no agent yet: <Link href="/register">register one</Link>.
        </p>
      )}
      <ul className="cards">
        {ids.data?.map((id) => (
          <MyListingCard key={id} onChainId={id} />
        ))}
      </ul>
    </section>
  );
}
