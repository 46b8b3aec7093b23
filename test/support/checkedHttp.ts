// GETs for API tests that also hold every response to what the spec promises of all of them.
import { expect } from "vitest";
import { http, type JsonResponse, type RequestOptions } from "./http.ts";

const RATE_LIMIT_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];

export type CheckedHttp = ReturnType<typeof checkedHttp>;

/**
 * `http(baseUrl).get` that checks every response, success or error, for an X-Request-Id of its
 * own and the rate limit headers; `requestIds` keeps the ids seen, to check that none repeats.
 */
export function checkedHttp(baseUrl: () => string) {
  const client = http(baseUrl);
  const requestIds: string[] = [];
  async function get(path: string, options?: RequestOptions): Promise<JsonResponse> {
    const response = await client.get(path, options);
    const requestId = response.headers.get("x-request-id");
    expect(requestId, `X-Request-Id of ${path}`).toMatch(/^req_[0-9a-f]{24}$/);
    requestIds.push(requestId as string);
    for (const header of RATE_LIMIT_HEADERS) {
      expect(response.headers.get(header), `${header} of ${path}`).toMatch(/^\d+$/);
    }
    return response;
  }
  return { get, requestIds };
}
