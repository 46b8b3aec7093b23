import type { IncomingHttpHeaders } from "node:http";
import type { ChatRequest } from "./chatRequest.ts";
import type { PlannedMessage } from "./planAnswer.ts";

/** One vendor's wire format: how its requests read and how its answers and errors look. */
export type ProtocolAdapter = {
  /** The response header carrying the request's id, as the vendor names it. */
  requestIdHeader: string;
  apiKeyOf(headers: IncomingHttpHeaders): string | undefined;
  /** The 401 this vendor gives a request with no key (`undefined`) or a refused one. */
  authenticationError(apiKey: string | undefined): VendorError;
  /** The request, or why the vendor would refuse it (answered 400). */
  parseRequest(body: unknown): ChatRequest | { invalid: string };
  errorBody(error: VendorError, requestId: string): unknown;
  /** The whole answer, for a request that is not streamed. */
  completion(message: PlannedMessage, request: ChatRequest, ids: IdSource): unknown;
  /** The answer as server-sent events, in order. */
  streamEvents(message: PlannedMessage, request: ChatRequest, ids: IdSource): StreamEvent[];
};

/** An error before the vendor's shape is put on it; type and code default by status. */
export type VendorError = {
  status: number;
  message: string;
  type?: string;
  code?: string | null;
};

export type StreamEvent = {
  /** The SSE `event:` field; Anthropic names every event, OpenAI none. */
  event?: string;
  data: string;
  /** Whether it carries a piece of the answer, which `cutAfterChunks` counts. */
  carriesContent: boolean;
};

/** Fresh ids with a vendor's prefix, e.g. `ids("msg_emu")` → `msg_emu7`. */
export type IdSource = (prefix: string) => string;

/** A tool call's input as one JSON text (OpenAI's `arguments`, Anthropic's streamed input). */
export function inputJson(input: unknown): string {
  return JSON.stringify(input) ?? "null";
}
