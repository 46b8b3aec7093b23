// The EIP-4361 (Sign-In with Ethereum) messages the API issues: each names the API's domain and
// URI, the chain, a nonce the API keeps, and an expiry, so a signature given to another site is
// useless here.
import { type Address, getAddress } from "viem";
import { createSiweMessage } from "viem/siwe";
import type { ApiKeyScope } from "./apiKeyScopes.ts";

/** Where the API is reached: `domain` is its host (and port), `uri` its origin. */
export type SiweOrigin = { domain: string; uri: string };

export const SIGN_IN_STATEMENT = "Sign in to the agent marketplace.";

/** A new key's spend limits as its statement names them: wei a UTC day, and `lst_…` ids. */
export type StatedLimits = { dailySpendCapWei?: string; allowedListings?: readonly string[] };

/** The key-creation statement: what the wallet agrees to, label, scopes and limits included. */
export function apiKeyStatement(
  label: string,
  scopes: readonly ApiKeyScope[],
  { dailySpendCapWei, allowedListings }: StatedLimits = {},
): string {
  const limits = [
    dailySpendCapWei === undefined
      ? ""
      : ` It may spend at most ${dailySpendCapWei} wei a UTC day.`,
    allowedListings === undefined ? "" : ` It may run only ${allowedListings.join(", ")}.`,
  ];
  return `Create an API key labelled "${label}" with the scopes: ${scopes.join(", ")}.${limits.join("")}`;
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
