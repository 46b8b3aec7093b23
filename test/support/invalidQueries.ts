// How a list answers query parameters it cannot take; paging is one set of parameters wherever a
// list pages, so the same values fail everywhere.
import { expect, it } from "vitest";
import type { CheckedHttp } from "./checkedHttp.ts";
import { expectError } from "./http.ts";

/** `[parameter, query]`: a `limit` or `offset` a paged list refuses. */
export const INVALID_PAGES: [string, string][] = [
  ["limit", "limit=0"],
  ["limit", "limit=101"],
  ["limit", "limit=1.5"],
  ["limit", "limit=ten"],
  ["offset", "offset=-1"],
  ["offset", "offset=0.5"],
  ["offset", "offset=next"],
];

/** A test per `[parameter, query]`: `GET path?query` answers 400 invalid_request naming it. */
export function itRefusesInvalidQueries(
  api: CheckedHttp,
  path: string,
  bearer: () => string,
  cases: [string, string][],
) {
  it.each(cases)("answers 400 invalid_request naming %s for ?%s", async (parameter, query) => {
    const reply = await api.get(`${path}?${query}`, { bearer: bearer() });
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error.message).toContain(parameter);
  });
}
