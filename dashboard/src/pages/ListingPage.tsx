import type { Listing } from "@service/sdk";
import { useQuery } from "@tanstack/react-query";
import type { Hex } from "viem";
import { TransactionProgress } from "../chain/TransactionProgress.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useOnChainListing } from "../chain/useOnChainListing.ts";
import { CredentialStatus } from "../credentials/CredentialStatus.tsx";
import { ListingFacts } from "../listings/ListingFacts.tsx";
import { PurchaseForm } from "../listings/PurchaseForm.tsx";
import { ReviewForm } from "../reviews/ReviewForm.tsx";
import { ReviewList } from "../reviews/ReviewList.tsx";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

export function ListingPage({ listingId }: { listingId: string }) {
  const client = useClient();
  const detail = useQuery({
    queryKey: ["listing", listingId],
    queryFn: () => client.listings.get(listingId),
  });
  const listing = detail.data;
  // The heading stays through loading, so the focus it takes on arrival stays with it.
  return (
    <article aria-labelledby="listing-title">
      <PageHeading id="listing-title" title={listing?.title ?? "Listing"} />
      {detail.isPending && <Loading label="Loading the listing" />}
      <ErrorMessage error={detail.error} />
      {listing && <ListingDetail listing={listing} />}
    </article>
  );
}

function ListingDetail({ listing }: { listing: Listing }) {
  const client = useClient();
  const check = useQuery({
    queryKey: ["credential-check", listing.id],
    queryFn: () => client.credentials.verify(listing.id),
  });
  const purchase = useMarketplaceTransaction();
  const onChain = useOnChainListing(listing.on_chain_id as Hex);
  const price = onChain.listing?.price;
  const rented = check.data !== undefined && check.data.status !== "not_found";

  return (
    <>
      <p>{listing.description}</p>
      <ListingFacts listing={listing} />
      {listing.sample_output.length > 0 && (
        <section aria-labelledby="samples-title">
          <h2 id="samples-title">Sample output</h2>
          {listing.sample_output.map((sample) => (
            <pre key={sample}>{sample}</pre>
          ))}
        </section>
      )}
      <section aria-labelledby="rent-title">
        <h2 id="rent-title">Rent</h2>
        {(check.isPending || (price === undefined && !onChain.error)) && (
          <Loading label="Checking your credential" />
        )}
        <ErrorMessage error={check.error ?? onChain.error} />
        {check.data &&
          price !== undefined &&
          (check.data.status === "not_found" ? (
            <PurchaseForm listing={listing} priceWei={price} transaction={purchase} />
          ) : (
            <>
              <CredentialStatus
                listingId={listing.id}
                onChainId={listing.on_chain_id as Hex}
                rentalModel={listing.rental_model}
                status={check.data.status}
                finality={check.data.valid ? check.data.finality : undefined}
              />
              <p>
                <Link href={`/playground?agent=${listing.id}`}>Run a task in the playground</Link>
              </p>
            </>
          ))}
        <TransactionProgress transaction={purchase} />
      </section>
      <section aria-labelledby="reviews-title">
        <h2 id="reviews-title">Reviews</h2>
        {rented && <ReviewForm listingId={listing.id} />}
        <ReviewList listingId={listing.id} />
      </section>
    </>
  );
}
