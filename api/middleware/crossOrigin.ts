import { cors } from "hono/cors";

/**
 * Any web page may call the API from a browser: callers prove who they are with a bearer token the
 * page holds, never with a cookie or anything else a browser adds by itself, so a page can do no
 * more across origins than the token it was given allows.
 */
export const crossOrigin = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "DELETE"],
  allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key"],
  exposeHeaders: [
    "X-Request-Id",
    "Retry-After",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
  ],
  maxAge: 600,
});
