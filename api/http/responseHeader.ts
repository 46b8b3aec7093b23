import type { ServerResponse } from "node:http";
import type { Context } from "hono";

/**
 * Sets a header of the response to `c`. Served over Node, the header goes straight onto Node's
 * response, which the adapter's `writeHead` merges with the route's own: `c.header` would build a
 * web `Headers` for every answer, which the adapter then reads back into a plain object (7% of the
 * API's busy time in a profile, docs/benchmarks.md). Elsewhere (`app.request()`), through Hono.
 */
export function setResponseHeader(c: Context, name: string, value: string) {
  setResponseHeaders(c, [[name, value]]);
}

/** `setResponseHeader` for each of `headers`, finding Node's response once. */
export function setResponseHeaders(c: Context, headers: readonly (readonly [string, string])[]) {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  const direct = outgoing && !outgoing.headersSent ? outgoing : undefined;
  for (const [name, value] of headers) {
    if (direct) direct.setHeader(name, value);
    else c.header(name, value);
  }
}
