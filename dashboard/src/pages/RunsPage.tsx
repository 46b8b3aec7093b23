import { useQuery } from "@tanstack/react-query";
import { Link } from "../routing/Link.tsx";
import { RunsTable } from "../runs/RunsTable.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";
import { useCursorPages } from "../ui/useCursorPages.ts";

const PAGE_SIZE = 10;

/** The connected wallet's runs, newest first, a page at a time. */
export function RunsPage() {
  const client = useClient();
  const { page, pageNumber, next, previous } = useCursorPages(["runs"], (cursor) =>
    client.runs.list({ limit: PAGE_SIZE, cursor }),
  );
  // The agents' titles, from the credentials the runs were made with (the Playground's query).
  const credentials = useQuery({
    queryKey: ["credentials"],
    queryFn: () => client.credentials.list({ limit: 100 }),
  });
  const titles = new Map(
    credentials.data?.credentials.map((item) => [item.listing_id, item.listing_title]),
  );
  const runs = page.data?.runs;
  const nextCursor = page.data?.next_cursor ?? null;
  return (
    <section aria-labelledby="runs-title">
      <PageHeading id="runs-title" title="Runs" />
      {page.isPending && <Loading label="Loading your runs" />}
      <ErrorMessage error={page.error} />
      {runs?.length === 0 && pageNumber === 1 && (
        <p>
          No run yet: rent an agent in the <Link href="/">catalogue</Link> and run a task in the{" "}
          <Link href="/playground">playground</Link>.
        </p>
      )}
      {runs && runs.length > 0 && (
        <>
          {/* The page shown stays until the next has loaded. */}
          <p role="status">
            {page.isPlaceholderData ? `Loading page ${pageNumber}…` : `Page ${pageNumber}`}
          </p>
          <RunsTable runs={runs} titles={titles} caption="Your runs, newest first" />
          <div className="pager">
            <button
              type="button"
              disabled={pageNumber === 1 || page.isPlaceholderData}
              onClick={previous}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={nextCursor === null || page.isPlaceholderData}
              onClick={() => nextCursor && next(nextCursor)}
            >
              Next page
            </button>
          </div>
        </>
      )}
    </section>
  );
}
