// The moments a figure on a page changed, as the page itself saw them: a MutationObserver in the page
// notes the text of the element marked `data-testid` at each change, with the wall clock's time.
import type { Page } from "playwright-core";

export type TextChange = { text: string | null; at: number };

/** Starts noting the changes of the element `testId` (its text now is the first note). */
export async function recordTextChanges(page: Page, testId: string) {
  // Where the page keeps its notes.
  const notes = `__textChanges:${testId}`;
  await page.evaluate(
    ({ testId, notes }) => {
      // The root tsconfig has no DOM types: what is used of them, typed here.
      const { document, MutationObserver } = globalThis as unknown as {
        document: {
          body: unknown;
          querySelector: (selector: string) => { textContent: string | null } | null;
        };
        MutationObserver: new (
          callback: () => void,
        ) => { observe: (target: unknown, options: object) => void };
      };
      const read = () => document.querySelector(`[data-testid="${testId}"]`)?.textContent ?? null;
      const changes = [{ text: read(), at: Date.now() }];
      (globalThis as Record<string, unknown>)[notes] = changes;
      new MutationObserver(() => {
        const text = read();
        if (text !== changes.at(-1)?.text) changes.push({ text, at: Date.now() });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    },
    { testId, notes },
  );
  const changesIn = (notes: string) =>
    (globalThis as Record<string, unknown>)[notes] as TextChange[];
  return {
    /** Every change noted so far, the text at the start first. */
    changes: (): Promise<TextChange[]> => page.evaluate(changesIn, notes),
    /** When the element first showed `text` (`Date.now()` in the page), once it has. */
    async shownAt(text: string, timeoutMs = 30_000): Promise<number> {
      const shown = await page.waitForFunction(
        ({ notes, text }) =>
          ((globalThis as Record<string, unknown>)[notes] as TextChange[]).find(
            (change) => change.text === text,
          )?.at,
        { notes, text },
        { timeout: timeoutMs, polling: 20 },
      );
      return (await shown.jsonValue()) as number;
    },
  };
}
