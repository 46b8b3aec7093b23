import { useQuery } from "@tanstack/react-query";
import type { Hex } from "viem";
import { TransactionProgress } from "../chain/TransactionProgress.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useOnChainListing } from "../chain/useOnChainListing.ts";
import { CredentialStatus } from "../credentials/CredentialStatus.tsx";
import { ListingFacts } from "../listings/ListingFacts.tsx";
import { PurchaseForm } from "../listings/PurchaseForm.tsx";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";

export function ListingPage({ listingId }: { listingId: string }) {
  const client = useClient();
  const detail = useQuery({
    queryKey: ["listing", listingId],
    queryFn: () => client.listings.get(listingId),
  });
  const check = useQuery({
    queryKey: ["credential-check", listingId],
    queryFn: () => client.credentials.verify(listingId),
  });
  const purchase = useMarketplaceTransaction();
  const onChain = useOnChainListing(detail.data?.on_chain_id as Hex | undefined);

  if (detail.isPending) return <Loading label="Loading the listing" />;
  if (detail.error) return <ErrorMessage error={detail.error} />;
  const listing = detail.data;
  const price = onChain.listing?.price;

  return (
    <article aria-labelledby="listing-title">
      <h1 id="listing-title">{listing.title}</h1>
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
              />
              <p>
                <Link href={`/playground?agent=${listing.id}`}>Run a task in the playground</Link>
              </p>
            </>
          ))}
        <TransactionProgress transaction={purchase} />
      </section>
    </article>
  );
}
