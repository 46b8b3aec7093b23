import type { Account } from "viem";
import { API_KEY_SCOPES, type ApiKeyScope } from "../../lib/auth/apiKeyScopes.ts";
import { signIn } from "./signIn.ts";

/**
 * An API key of `account`, made as the dashboard does: wallet sign-in, then a SIWE message naming
 * the key's label and scopes (every scope unless told), signed to confirm.
 */
export async function createApiKey(
  apiUrl: string,
  account: Account,
  label = "default",
  scopes: readonly ApiKeyScope[] = API_KEY_SCOPES,
): Promise<{ id: string; key: string }> {
  if (!account.signMessage) throw new Error("the account cannot sign messages");
  const authorization = `Bearer ${await signIn(apiUrl, account)}`;
  const query = new URLSearchParams({ format: "siwe", label, scopes: scopes.join(",") });
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
    body: JSON.stringify({ label, scopes, challenge, signature }),
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${await response.text()}`);
  return (await response.json()) as { id: string; key: string };
}
