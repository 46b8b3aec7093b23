import { createMiddleware } from "hono/factory";
import { setResponseHeader } from "../responseHeader.ts";

const ANSWER_HEADERS: [string, string][] = [
  ["Access-Control-Allow-Origin", "*"],
  [
    "Access-Control-Expose-Headers",
    "X-Request-Id,Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset",
  ],
];
const PREFLIGHT_HEADERS: Record<string, string> = {
  ...Object.fromEntries(ANSWER_HEADERS),
  "Access-Control-Allow-Methods": "GET,POST,DELETE",
  "Access-Control-Allow-Headers": "Authorization,Content-Type,Idempotency-Key",
  "Access-Control-Max-Age": "600",
  Vary: "Access-Control-Request-Headers",
};

/**
 * Any web page may call the API from a browser: callers prove who they are with a bearer token the
 * page holds, never with a cookie or anything else a browser adds by itself, so a page can do no
 * more across origins than the token it was given allows. Preflights are answered here, before
 * anything asks who is calling. The headers are set before the route, on the response it builds.
 */
export const crossOrigin = createMiddleware(async (c, next) => {
  if (c.req.method === "OPTIONS") return c.body(null, 204, PREFLIGHT_HEADERS);
  for (const [name, value] of ANSWER_HEADERS) setResponseHeader(c, name, value);
  await next();
});
