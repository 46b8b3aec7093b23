import type { Account } from "viem";
import { apiKeyConfirmationMessage } from "../../lib/auth/messages.ts";
import { signIn } from "./signIn.ts";

/** An API key of `account`, made as the dashboard does: wallet sign-in, then a signed confirmation. */
export async function createApiKey(
  apiUrl: string,
  account: Account,
  label = "default",
): Promise<{ id: string; key: string }> {
  if (!account.signMessage) throw new Error("the account cannot sign messages");
  const token = await signIn(apiUrl, account);
  const issuedAt = Math.floor(Date.now() / 1000);
  const signature = await account.signMessage({
    message: apiKeyConfirmationMessage("intl", label, issuedAt),
  });
  const response = await fetch(`${apiUrl}/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ label, issued_at: issuedAt, signature }),
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${await response.text()}`);
  return (await response.json()) as { id: string; key: string };
}
