import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";

/**
 * Pages of a cursor-paged endpoint, one at a time: `read(cursor)` reads a page (the first with no
 * cursor); `next` goes on to the page a cursor names, `previous` back to the one before.
 */
export function useCursorPages<Page>(
  key: readonly unknown[],
  read: (cursor: string | undefined) => Promise<Page>,
) {
  // The cursors of the pages read so far, the first page's undefined: the last is the page shown.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const page = useQuery({
    queryKey: [...key, cursor ?? null],
    queryFn: () => read(cursor),
    placeholderData: keepPreviousData,
  });
  return {
    page,
    pageNumber: cursors.length,
    next: (nextCursor: string) => setCursors([...cursors, nextCursor]),
    previous: () => setCursors(cursors.slice(0, -1)),
  };
}
