import type { Paged } from "./paged.ts";

type CursorPageReader<Page, Item> = {
  /** Reads the page after `cursor` (the first page when undefined). */
  read: (cursor: string | undefined) => Promise<Page>;
  items: (page: Page) => Item[];
  /** The cursor of the page after `page`, or null when it is the last. */
  next: (page: Page) => string | null;
};

/**
 * A list paged by cursor: the first page as a promise; iterated with `for await`, every item from
 * the first page's on, page after page until the API answers no next cursor.
 */
export function cursorPaged<Page, Item>(reader: CursorPageReader<Page, Item>): Paged<Page, Item> {
  const first = reader.read(undefined);
  return Object.assign(first, {
    [Symbol.asyncIterator]: () => eachItem(first, reader),
  });
}

async function* eachItem<Page, Item>(
  first: Promise<Page>,
  reader: CursorPageReader<Page, Item>,
): AsyncGenerator<Item, void, undefined> {
  let page = await first;
  for (;;) {
    yield* reader.items(page);
    const cursor = reader.next(page);
    if (cursor === null) return;
    page = await reader.read(cursor);
  }
}
