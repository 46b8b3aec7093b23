import type { MiddlewareHandler } from "hono";
import type { ActiveKey } from "../auth/apiKeyCache.ts";
import { hashApiKey, isApiKeyOf, looksLikeApiKey } from "../auth/apiKeys.ts";
import { verifyToken } from "../auth/jwt.ts";
import { ApiError } from "../http/errors.ts";
import type { ApiDeps, AppEnv, Identity } from "../process/context.ts";

type Identified = { identity: Identity } | { authError: ApiError };

/**
 * Works out who is calling from `Authorization: Bearer <API key or JWT>`: at once for a cached API
 * key, else with a promise. A failure to authenticate is returned, not thrown, so the rate limit
 * still counts the request before it is refused.
 */
export function identify(
  header: string | undefined,
  deps: ApiDeps,
): Identified | Promise<Identified> {
  try {
    const identity = identityOf(header, deps);
    return identity instanceof Promise ? identity.then(identified, refused) : { identity };
  } catch (error) {
    return refused(error);
  }
}

const identified = (identity: Identity): Identified => ({ identity });

function refused(error: unknown): Identified {
  if (!(error instanceof ApiError)) throw error;
  return { authError: error };
}

/** Refuses requests that `identify` could not authenticate. */
export const requireIdentity: MiddlewareHandler<AppEnv> = (c, next) => {
  const authError = c.get("authError");
  if (authError) throw authError;
  return next();
};

function identityOf(header: string | undefined, deps: ApiDeps): Identity | Promise<Identity> {
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
    const keyHash = hashApiKey(token);
    const identityOfKey = (key: ActiveKey | undefined): Identity => {
      if (!key) throw new ApiError("invalid_api_key", "The API key is invalid or revoked");
      return {
        method: "api_key",
        wallet: key.wallet,
        keyId: key.id,
        keyHash,
        scopes: key.scopes,
        limits: key.limits,
      };
    };
    const key = deps.apiKeys.find(keyHash);
    return key instanceof Promise ? key.then(identityOfKey) : identityOfKey(key);
  }
  return verifyToken(token, deps.settings.jwt, Math.floor(deps.now() / 1000)).then(
    ({ wallet, expiresAt }) => ({ method: "jwt", wallet, expiresAt }),
  );
}
