// Talks to a running API the way a client does: over HTTP, with a wallet token or an API key.
import { expect } from "vitest";

export { createApiKey } from "../../devStack/client/createApiKey.ts";
export { signIn } from "../../devStack/client/signIn.ts";

/** A JSON response; the body is left untyped because tests assert its exact shape. */
export type JsonResponse = {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests compare whole bodies against the spec
  body: any;
};

export type RequestOptions = {
  /** An API key or JWT, sent as `Authorization: Bearer …`. */
  bearer?: string;
  headers?: Record<string, string>;
};

/** What sends the requests: `fetch` by default, or an in-process app's `request`. */
export type Send = (url: string, init: RequestInit) => Response | Promise<Response>;

/**
 * `fetch` as JSON against `baseUrl`: `get`, `post` and `put` (a value is sent as JSON, a string as
 * is), `del`.
 */
export function http(
  baseUrl: string | (() => string),
  defaults: RequestOptions & { send?: Send } = {},
) {
  const urlOf = (path: string) => `${typeof baseUrl === "string" ? baseUrl : baseUrl()}${path}`;
  async function send(
    method: string,
    path: string,
    body: unknown,
    options: RequestOptions = {},
  ): Promise<JsonResponse> {
    const bearer = options.bearer ?? defaults.bearer;
    const response = await (defaults.send ?? fetch)(urlOf(path), {
      method,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...defaults.headers,
        ...options.headers,
      },
      body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === "" ? undefined : JSON.parse(text),
    };
  }
  return {
    get: (path: string, options?: RequestOptions) => send("GET", path, undefined, options),
    post: (path: string, body: unknown, options?: RequestOptions) =>
      send("POST", path, body, options),
    put: (path: string, body: unknown, options?: RequestOptions) =>
      send("PUT", path, body, options),
    del: (path: string, options?: RequestOptions) => send("DELETE", path, undefined, options),
    /** Any method: a body, when given, is sent as JSON. */
    send,
  };
}

/** The specification's error object, exactly, with this status and code. */
export function expectError(
  response: Pick<JsonResponse, "status" | "body">,
  status: number,
  code: string,
) {
  expect({ status: response.status, body: response.body }).toStrictEqual({
    status,
    body: { error: { code, message: expect.any(String), status } },
  });
}

/** The specification's error object with the `ServiceMarketplace` contract error behind it. */
export function expectOnChainError(
  response: Pick<JsonResponse, "status" | "body">,
  status: number,
  code: string,
  contractError: string,
) {
  expect({ status: response.status, body: response.body }).toStrictEqual({
    status,
    body: {
      error: {
        code,
        message: expect.any(String),
        status,
        on_chain_error: { contract: "ServiceMarketplace", error: contractError },
      },
    },
  });
}
