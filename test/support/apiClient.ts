// Talks to a running API the way a client does: over HTTP, with a wallet or a key.
import { createApiKey } from "../../lib/client/createApiKey.ts";
import { signIn } from "../../lib/client/signIn.ts";

export { createApiKey, signIn };

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
