import {
  type GuardedRequestOptions,
  type GuardedResponse,
  guardedRequest,
} from "./guardedRequest.ts";

export type GuardedPostOptions = GuardedRequestOptions;

/** POSTs `body` to a URL someone outside gave us, through the outbound guard (`guardedRequest`). */
export function guardedPost(
  url: string,
  { headers, body, signal }: { headers: Record<string, string>; body: string; signal: AbortSignal },
  options: GuardedPostOptions,
): Promise<GuardedResponse> {
  return guardedRequest(url, { method: "POST", headers, body, signal }, options);
}
