// The EIP-4361 (Sign-In with Ethereum) messages the API issues: each names the API's domain and
// URI, the chain, a nonce the API keeps, and an expiry, so a signature given to another site is
// useless here.
import { type Address, getAddress } from "viem";
import { createSiweMessage } from "viem/siwe";
import type { ApiKeyScope } from "./apiKeyScopes.ts";

/** Where the API is reached: `domain` is its host (and port), `uri` its origin. */
export type SiweOrigin = { domain: string; uri: string };

export const SIGN_IN_STATEMENT = "Sign in to the agent marketplace.";

/** The key-creation statement: what the wallet agrees to, label and scopes included. */
export function apiKeyStatement(label: string, scopes: readonly ApiKeyScope[]): string {
  return `Create an API key labelled "${label}" with the scopes: ${scopes.join(", ")}.`;
}

export function siweMessage({
  origin,
  wallet,
  chainId,
  nonce,
  statement,
  issuedAt,
  expiresAt,
}: {
  origin: SiweOrigin;
  wallet: Address;
  chainId: number;
  nonce: string;
  statement: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
}): string {
  return createSiweMessage({
    domain: origin.domain,
    uri: origin.uri,
    address: getAddress(wallet),
    chainId,
    nonce,
    statement,
    version: "1",
    issuedAt: new Date(issuedAt * 1000),
    expirationTime: new Date(expiresAt * 1000),
  });
}
