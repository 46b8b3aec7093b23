// The hello-world of bench/helloServer.ts with some of the fixed work the API does for every request,
// the API's own code, in front of it: what each piece costs on the framework's ceiling. PIECES, a
// comma-separated list of the names below, chooses them. Serves on 127.0.0.1:$PORT.
import { serve } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import { hashApiKey } from "../api/auth/apiKeys.ts";
import { setResponseHeader } from "../api/http/responseHeader.ts";
import { logAccess } from "../api/middleware/accessLog.ts";
import { CROSS_ORIGIN_HEADERS } from "../api/middleware/crossOrigin.ts";
import { newRequestId } from "../api/middleware/requestId.ts";
import { securityHeaders } from "../api/middleware/securityHeaders.ts";
import type { ApiDeps, AppEnv } from "../api/process/context.ts";
import { createLogger } from "../lib/log.ts";

const deps = { log: createLogger("api") } as ApiDeps;

const PIECES: Record<string, MiddlewareHandler<AppEnv>[]> = {
  /** The 12 headers every answer carries before the route's own. */
  headers: [
    async (c, next) => {
      for (const [name, value] of [...securityHeaders({ live: false }), ...CROSS_ORIGIN_HEADERS]) {
        setResponseHeader(c, name, value);
      }
      await next();
    },
  ],
  "request id": [
    async (c, next) => {
      const id = newRequestId();
      c.set("requestId", id);
      setResponseHeader(c, "X-Request-Id", id);
      await next();
    },
  ],
  /** The access line, through the API's logger to standard output. */
  "access log": [
    async (c, next) => {
      c.set("deps", deps);
      const started = performance.now();
      await next();
      logAccess(c, started);
    },
  ],
  /** Hashing the bearer token, as every API-key lookup does before the cache is asked. */
  "key hash": [
    async (c, next) => {
      hashApiKey(c.req.header("authorization") ?? "");
      await next();
    },
  ],
};

const chosen = (process.env.PIECES ?? "").split(",").filter(Boolean);
const app = new Hono<AppEnv>();
for (const name of chosen) {
  const piece = PIECES[name];
  if (!piece) throw new Error(`PIECES: no piece named ${name}; there are ${Object.keys(PIECES)}`);
  app.use(...piece);
}
app.get("/", (c) => c.text("hello"));
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
