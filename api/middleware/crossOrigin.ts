import type { Context } from "hono";

/**
 * Any web page may call the API from a browser: callers prove who they are with a bearer token the
 * page holds, never with a cookie or anything else a browser adds by itself, so a page can do no
 * more across origins than the token it was given allows.
 */
export const CROSS_ORIGIN_HEADERS: readonly [string, string][] = [
  ["Access-Control-Allow-Origin", "*"],
  [
    "Access-Control-Expose-Headers",
    "X-Request-Id,X-Run-Id,Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,Mcp-Session-Id",
  ],
];

const PREFLIGHT_HEADERS: Record<string, string> = {
  ...Object.fromEntries(CROSS_ORIGIN_HEADERS),
  "Access-Control-Allow-Methods": "GET,POST,DELETE",
  "Access-Control-Allow-Headers":
    "Authorization,Content-Type,Idempotency-Key,User-Agent,Mcp-Session-Id,Mcp-Protocol-Version",
  "Access-Control-Max-Age": "600",
  Vary: "Access-Control-Request-Headers",
};

/** The answer to a preflight, given before anything asks who is calling. */
export function preflightAnswer(c: Context): Response {
  return c.body(null, 204, PREFLIGHT_HEADERS);
}
