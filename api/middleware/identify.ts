import { createMiddleware } from "hono/factory";
import { hashApiKey, isApiKeyOf, looksLikeApiKey } from "../auth/apiKeys.ts";
import { verifyToken } from "../auth/jwt.ts";
import type { AppEnv, Identity } from "../context.ts";
import { ApiError } from "../errors.ts";

/**
 * Works out who is calling from `Authorization: Bearer <API key or JWT>`. A failure is kept, not
 * thrown, so the rate limit still counts the request before it is refused.
 */
export const identify = createMiddleware<AppEnv>(async (c, next) => {
  try {
    c.set("identity", await identityOf(c.req.header("authorization"), c.get("deps")));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    c.set("authError", error);
  }
  await next();
});

/** Refuses requests that `identify` could not authenticate. */
export const requireIdentity = createMiddleware<AppEnv>(async (c, next) => {
  const authError = c.get("authError");
  if (authError) throw authError;
  await next();
});

async function identityOf(
  header: string | undefined,
  deps: AppEnv["Variables"]["deps"],
): Promise<Identity> {
  if (!header) throw new ApiError("unauthorized", "The Authorization header is missing");
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match?.[1]) throw new ApiError("unauthorized", "Authorization must be 'Bearer <token>'");
  const token = match[1];

  if (looksLikeApiKey(token)) {
    if (!isApiKeyOf(token, deps.settings.network)) {
      throw new ApiError(
        "invalid_api_key",
        `API keys here begin with intl_${deps.settings.network}_`,
      );
    }
    const key = await deps.apiKeys.find(hashApiKey(token));
    if (!key) throw new ApiError("invalid_api_key", "The API key is invalid or revoked");
    return { method: "api_key", wallet: key.wallet, keyId: key.id };
  }

  const wallet = await verifyToken(token, deps.settings.jwt, Math.floor(deps.now() / 1000));
  return { method: "jwt", wallet };
}
