import type { Account } from "viem";
import { API_KEY_SCOPES, type ApiKeyScope } from "../../lib/auth/apiKeyScopes.ts";
import { signIn } from "./signIn.ts";

/** What a new key may spend: wei a UTC day, and the only listings (`lst_…`) it may run. */
export type KeyLimits = { daily_spend_cap_wei?: string; allowed_listings?: string[] };

/**
 * An API key of `account`, made as the dashboard does: wallet sign-in, then a SIWE message naming
 * the key's label, scopes (every scope unless told) and limits, signed to confirm.
 */
export async function createApiKey(
  apiUrl: string,
  account: Account,
  label = "default",
  scopes: readonly ApiKeyScope[] = API_KEY_SCOPES,
  limits: KeyLimits = {},
): Promise<{ id: string; key: string }> {
  if (!account.signMessage) throw new Error("the account cannot sign messages");
  const authorization = `Bearer ${await signIn(apiUrl, account)}`;
  const query = new URLSearchParams({
    format: "siwe",
    label,
    scopes: scopes.join(","),
    ...(limits.daily_spend_cap_wei && { daily_spend_cap_wei: limits.daily_spend_cap_wei }),
    ...(limits.allowed_listings && { allowed_listings: limits.allowed_listings.join(",") }),
  });
  const challengeResponse = await fetch(`${apiUrl}/v1/api-keys/challenge?${query}`, {
    headers: { authorization },
  });
  if (challengeResponse.status !== 200) {
    throw new Error(`no key-creation challenge: ${await challengeResponse.text()}`);
  }
  const { challenge } = (await challengeResponse.json()) as { challenge: string };
  const signature = await account.signMessage({ message: challenge });
  const response = await fetch(`${apiUrl}/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization },
    body: JSON.stringify({ label, scopes, ...limits, challenge, signature }),
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${await response.text()}`);
  return (await response.json()) as { id: string; key: string };
}
