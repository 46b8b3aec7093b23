import type { Hono, MiddlewareHandler } from "hono";
import type { ApiKeyScope } from "../../lib/auth/apiKeyScopes.ts";
import { ApiError } from "../http/errors.ts";
import type { AppEnv, Identity } from "../process/context.ts";

/**
 * What an API key needs to call each endpoint; a wallet's JWT may call them all. Creator powers
 * (registering, reading jobs, which carry webhook secrets, setting execution limits, replying to
 * reviews) need `create`; running tasks, reviewing and managing webhook endpoints (whose creation
 * answers a secret) need `run`; reading needs `read`.
 */
const ENDPOINT_SCOPES: [method: string, paths: string[], scope: ApiKeyScope][] = [
  [
    "POST",
    ["/v1/execute", "/v1/execute/stream", "/v1/runs", "/v1/listings/:id/reviews", "/a2a/:id"],
    "run",
  ],
  ["POST", ["/v1/webhooks"], "run"],
  ["DELETE", ["/v1/webhooks/*"], "run"],
  [
    "GET",
    [
      "/v1/listings",
      "/v1/listings/*",
      "/v1/credentials",
      "/v1/credentials/*",
      "/v1/creators/*",
      "/v1/runs",
      "/v1/runs/*",
      "/v1/tools",
      "/v1/tools/*",
      "/v1/manifests/*",
      "/v1/webhooks",
      "/v1/webhooks/*",
    ],
    "read",
  ],
  ["POST", ["/v1/agents", "/v1/agents/*", "/v1/listings/:id/reviews/:review_id/reply"], "create"],
  ["GET", ["/v1/jobs/*"], "create"],
  ["PUT", ["/v1/listings/:id/execution-limit"], "create"],
];

/** Refuses an API key without `scope` with 403 `forbidden`. */
export function requireScope(scope: ApiKeyScope): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    checkScope(c.get("identity"), scope);
    return next();
  };
}

/** Throws 403 `forbidden` for an API key without `scope`; a wallet's JWT may do anything. */
export function checkScope(identity: Identity | undefined, scope: ApiKeyScope) {
  if (identity?.method === "api_key" && !identity.scopes.includes(scope)) {
    throw new ApiError("forbidden", `This API key lacks the '${scope}' scope`);
  }
}

/** Puts each endpoint behind the scope it needs. */
export function requireScopes(app: Hono<AppEnv>) {
  for (const [method, paths, scope] of ENDPOINT_SCOPES) {
    app.on(method, paths, requireScope(scope));
  }
}
