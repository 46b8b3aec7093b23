/**
 * A page of a paged endpoint, and, iterated with `for await`, every item from its offset on: page
 * after page until the last, each item once (an item a shifted page shows again is skipped).
 */
export type Paged<Page, Item> = Promise<Page> & AsyncIterable<Item>;

/** The API's largest page: the fewest requests for a walk through everything. */
const MAX_PAGE_SIZE = 100;

type PageReader<Page, Item> = {
  /** Reads the page of `limit` items (the API's default when undefined) from `offset`. */
  read: (offset: number, limit: number | undefined) => Promise<Page>;
  items: (page: Page) => Item[];
  total: (page: Page) => number;
  idOf: (item: Item) => string;
};

/**
 * The page asked for (`limit`, `offset`) as a promise; iterated, every item from `offset` on, the
 * pages after the first of `limit` items (the API's largest by default).
 */
export function paged<Page, Item>(
  { offset = 0, limit }: { offset?: number; limit?: number },
  reader: PageReader<Page, Item>,
): Paged<Page, Item> {
  const first = reader.read(offset, limit);
  return Object.assign(first, {
    [Symbol.asyncIterator]: () => eachItem(first, offset, limit ?? MAX_PAGE_SIZE, reader),
  });
}

async function* eachItem<Page, Item>(
  first: Promise<Page>,
  offset: number,
  limit: number,
  reader: PageReader<Page, Item>,
): AsyncGenerator<Item, void, undefined> {
  const seen = new Set<string>();
  let page = await first;
  for (;;) {
    const items = reader.items(page);
    for (const item of items) {
      const id = reader.idOf(item);
      if (seen.has(id)) continue;
      seen.add(id);
      yield item;
    }
    offset += items.length;
    if (items.length === 0 || offset >= reader.total(page)) return;
    page = await reader.read(offset, limit);
  }
}
