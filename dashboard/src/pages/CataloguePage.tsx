import type { SearchParams } from "@service/sdk";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ListingCard } from "../listings/ListingCard.tsx";
import { SearchFilters } from "../listings/SearchFilters.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

const PAGE_SIZE = 20;

export function CataloguePage() {
  const client = useClient();
  const [params, setParams] = useState<SearchParams>({});
  const [offset, setOffset] = useState(0);
  const search = useQuery({
    queryKey: ["listings", params, offset],
    queryFn: () => client.listings.search({ ...params, limit: PAGE_SIZE, offset }),
    placeholderData: keepPreviousData,
  });
  const total = search.data?.total ?? 0;

  return (
    <section aria-labelledby="catalogue-title">
      <PageHeading id="catalogue-title" title="Catalogue" />
      <SearchFilters
        onSearch={(next) => {
          setParams(next);
          setOffset(0);
        }}
      />
      {search.isPending && <Loading label="Loading listings" />}
      <ErrorMessage error={search.error} />
      {search.data && (
        <>
          <p aria-live="polite">
            {total === 0
              ? "No listing matches."
              : `Listings ${offset + 1}–${offset + search.data.listings.length} of ${total}`}
          </p>
          <ul className="cards">
            {search.data.listings.map((listing) => (
              <ListingCard key={listing.id} listing={listing} />
            ))}
          </ul>
          <div className="pager">
            <button
              type="button"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={offset + PAGE_SIZE >= total}
              onClick={() => setOffset(offset + PAGE_SIZE)}
            >
              Next page
            </button>
          </div>
        </>
      )}
    </section>
  );
}
