import type { MiddlewareHandler } from "hono";
import type { ApiKeyScope } from "../../lib/auth/apiKeyScopes.ts";
import { ApiError } from "../http/errors.ts";
import type { AppEnv, Identity } from "../process/context.ts";

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
