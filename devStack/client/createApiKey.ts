import type { Account } from "viem";
import { apiKeyConfirmationMessage } from "../../lib/auth/messages.ts";
import { signIn } from "./signIn.ts";

/**
 * An API key of `account`, made as the dashboard does: wallet sign-in, then a key-creation challenge
 * (naming the network and chain) signed together with the label.
 */
export async function createApiKey(
  apiUrl: string,
  account: Account,
  label = "default",
): Promise<{ id: string; key: string }> {
  if (!account.signMessage) throw new Error("the account cannot sign messages");
  const authorization = `Bearer ${await signIn(apiUrl, account)}`;
  const challengeResponse = await fetch(`${apiUrl}/v1/api-keys/challenge`, {
    headers: { authorization },
  });
  if (challengeResponse.status !== 200) {
    throw new Error(`no key-creation challenge: ${await challengeResponse.text()}`);
  }
  const { challenge } = (await challengeResponse.json()) as { challenge: string };
  const signature = await account.signMessage({
    message: apiKeyConfirmationMessage(challenge, label),
  });
  const response = await fetch(`${apiUrl}/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization },
    body: JSON.stringify({ label, challenge, signature }),
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${await response.text()}`);
  return (await response.json()) as { id: string; key: string };
}
