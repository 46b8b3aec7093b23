import type { IncomingHttpHeaders } from "node:http";

/** The wire protocols the emulator speaks, named as a manifest's `model.provider` names them. */
export type VendorProtocol = "openai" | "anthropic" | "self_hosted";

/** A request as the emulator received it, kept for assertions on prompts, tools and formats. */
export type RecordedRequest = {
  /** Which of the emulator's base URLs was called; absent for a path none of them serves. */
  protocol: VendorProtocol | undefined;
  method: string;
  /** The path and query, e.g. `/anthropic/v1/messages`. */
  path: string;
  /** The body's `model`, when the body had one. */
  model: string | undefined;
  /** The API key the request carried (`Authorization: Bearer`, Anthropic's `x-api-key`). */
  apiKey: string | undefined;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when it was missing, malformed or too large. */
  body: unknown;
  /** When the request's body had been read (epoch milliseconds). */
  receivedAt: number;
};
