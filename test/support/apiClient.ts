// Talks to a running API the way a client does: over HTTP, with a wallet or a key.
import type { HDAccount } from "viem/accounts";
import { signIn } from "../../lib/client/signIn.ts";

export { signIn };

export async function createApiKey(
  apiUrl: string,
  account: HDAccount,
  label = "tests",
): Promise<{ id: string; key: string }> {
  const token = await signIn(apiUrl, account);
  const issuedAt = Math.floor(Date.now() / 1000);
  const signature = await account.signMessage({
    message: `intl:create-api-key:${issuedAt}:${label}`,
  });
  const response = await fetch(`${apiUrl}/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ label, issued_at: issuedAt, signature }),
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${await response.text()}`);
  return (await response.json()) as { id: string; key: string };
}

/** A JSON response; the body is left untyped because tests assert its exact shape. */
export type JsonResponse = {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests compare whole bodies against the spec
  body: any;
};

export async function getJson(
  apiUrl: string,
  path: string,
  bearer?: string,
): Promise<JsonResponse> {
  const response = await fetch(`${apiUrl}${path}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}
