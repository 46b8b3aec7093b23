// The messages a wallet signs: the API builds and checks them, clients build them to sign.

/** The start of a sign-in challenge: `<service>:auth:`. */
export function signInChallengePrefix(serviceName: string): string {
  return `${serviceName}:auth:`;
}

/**
 * The start of a key-creation challenge, naming the network and chain the key will be used on:
 * `<service>:create-api-key:<network>:<chain_id>:`.
 */
export function apiKeyChallengePrefix(serviceName: string, network: string, chainId: number) {
  return `${serviceName}:create-api-key:${network}:${chainId}:`;
}

/** A challenge: what it is for (its prefix), then `<unix_seconds>:<hex_random>`. */
export function challengeMessage(prefix: string, issuedAt: number, nonce: string): string {
  return `${prefix}${issuedAt}:${nonce}`;
}

/** The confirmation of creating an API key with `label`: the key-creation challenge, then the label. */
export function apiKeyConfirmationMessage(challenge: string, label: string): string {
  return `${challenge}:${label}`;
}
