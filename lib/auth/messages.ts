// The messages a wallet signs: the API builds and checks them, clients build them to sign.

/** Sign-in: `<service>:auth:<unix_seconds>:<hex_random>`, signed with `personal_sign`. */
export function challengeMessage(serviceName: string, issuedAt: number, nonce: string): string {
  return `${serviceName}:auth:${issuedAt}:${nonce}`;
}

/** The confirmation of creating an API key with `label`. */
export function apiKeyConfirmationMessage(serviceName: string, label: string, issuedAt: number) {
  return `${serviceName}:create-api-key:${issuedAt}:${label}`;
}
