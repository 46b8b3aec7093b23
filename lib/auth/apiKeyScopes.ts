/** What an API key may do: run tasks, read, act as a creator (register, read webhook secrets). */
export const API_KEY_SCOPES = ["run", "read", "create"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** A new key's scopes when its creation names none: what a renter needs (docs/decisions.md). */
export const DEFAULT_API_KEY_SCOPES: readonly ApiKeyScope[] = ["run", "read"];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** `scopes` without repeats, in the order of `API_KEY_SCOPES`, so a message names them one way. */
export function canonicalScopes(scopes: readonly ApiKeyScope[]): ApiKeyScope[] {
  return API_KEY_SCOPES.filter((scope) => scopes.includes(scope));
}
