import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context.ts";

/** Enough of a path to find the route and the id in it; a longer one is cut. */
const LOGGED_PATH_CHARACTERS = 512;

/** One line per request: never headers, query values or bodies, which can carry secrets. */
export const accessLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  c.get("deps").log.info("request", {
    request_id: c.get("requestId"),
    method: c.req.method,
    path:
      c.req.path.length > LOGGED_PATH_CHARACTERS
        ? `${c.req.path.slice(0, LOGGED_PATH_CHARACTERS)}…`
        : c.req.path,
    status: c.res.status,
    duration_ms: Math.round(performance.now() - started),
    auth: c.get("identity")?.method,
  });
});
