import { ApiError } from "../http/errors.ts";
import { API_KEY_REVALIDATE_MS } from "../limits.ts";
import type { ApiDeps, Identity } from "../process/context.ts";

export type CredentialWatch = {
  /** Aborted once the credential stops being valid; its reason is the `ApiError` saying why. */
  signal: AbortSignal;
  stop: () => void;
};

/**
 * Follows the credential a long-lived answer (a stream) was authenticated with, which would
 * otherwise outlive it: a JWT ends at its expiry; an API key at its revocation, heard at once through
 * the revocation notice and, in case a notice was lost, by checking the key again every
 * `API_KEY_REVALIDATE_MS` (as the key cache revalidates).
 */
export function watchCredential(
  identity: Identity,
  deps: Pick<ApiDeps, "apiKeys" | "now">,
): CredentialWatch {
  const ended = new AbortController();
  if (identity.method === "jwt") {
    const expire = () =>
      ended.abort(new ApiError("jwt_expired", "The token has expired; authenticate again"));
    const timer = setTimeout(expire, identity.expiresAt * 1000 - deps.now());
    return { signal: ended.signal, stop: () => clearTimeout(timer) };
  }
  const revoke = () =>
    ended.abort(new ApiError("invalid_api_key", "The API key was revoked; use another"));
  const stopWatching = deps.apiKeys.watchRevocation(identity.keyId, revoke);
  const recheck = setInterval(() => {
    // A check that cannot reach Postgres decides nothing; the next one will.
    Promise.resolve(deps.apiKeys.find(identity.keyHash)).then(
      (key) => {
        if (!key) revoke();
      },
      () => {},
    );
  }, API_KEY_REVALIDATE_MS);
  return {
    signal: ended.signal,
    stop: () => {
      stopWatching();
      clearInterval(recheck);
    },
  };
}
