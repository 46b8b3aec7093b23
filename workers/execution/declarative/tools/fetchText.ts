import { guardedRequest, type Lookup } from "../../outbound/guardedRequest.ts";
import type { OutboundPolicy } from "../../outbound/outboundPolicy.ts";
import { ToolFailure, ToolRefusal } from "./builtInTool.ts";
import type { OutboundAllowance } from "./outboundAllowance.ts";

/** The most one call reads of one answer; the run's allowance may leave it less. */
export const MAX_FETCH_BYTES = 512 * 1024;
const USER_AGENT = "agent-marketplace-tools/1";
/** What a page fetched to be read accepts: text first, then JSON, then anything. */
export const READABLE_PAGE = "text/*, application/json;q=0.9, */*;q=0.1";

export type FetchedText = {
  text: string;
  contentType: string;
  /** The answer went on past what the call could read; `text` is its beginning. */
  truncated: boolean;
  /** What was read: at most the call's share of the allowance, and `MAX_FETCH_BYTES`. */
  readBytes: number;
};

export type FetchTextOptions = {
  policy: OutboundPolicy;
  lookup?: Lookup;
  signal: AbortSignal;
  allowance: OutboundAllowance;
  /** Told every byte the call received, for its record. */
  onRead: (bytes: number) => void;
  /** What a 404 means to the model, when it means more than the status. */
  notFound?: string;
};

/**
 * GETs `url` through the outbound guard (public HTTPS only, no redirects) and reads its text: as much
 * as the run's allowance and `MAX_FETCH_BYTES` let it, then closes the connection. An answer that is
 * not 2xx fails and one that is not text is refused, neither of them read.
 */
export async function fetchText(
  url: string,
  accept: string,
  { policy, lookup, signal, allowance, onRead, notFound }: FetchTextOptions,
): Promise<FetchedText> {
  const taken = allowance.take(MAX_FETCH_BYTES);
  if (taken === 0) {
    throw new ToolRefusal(
      `the run has read all ${Math.round(allowance.total / 1024)} KB its tools may read from outside`,
    );
  }
  let received = 0;
  try {
    const response = await guardedRequest(
      url,
      { method: "GET", headers: { accept, "user-agent": USER_AGENT }, signal },
      // This reads no more than it took, closing the connection there: the guard's cap would fail it.
      { policy, ...(lookup && { lookup }), maxResponseBytes: Number.MAX_SAFE_INTEGER },
    );
    if (response.status < 200 || response.status >= 300) {
      response.close();
      if (response.status === 404 && notFound) throw new ToolFailure(notFound);
      throw new ToolFailure(`the answer was HTTP ${response.status}`);
    }
    if (!isText(response.contentType)) {
      response.close();
      throw new ToolRefusal(`the answer is ${response.contentType}, not text`);
    }
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    for await (const chunk of response.body) {
      received += chunk.length;
      if (kept + chunk.length > taken) {
        chunks.push(chunk.subarray(0, taken - kept));
        kept = taken;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      kept += chunk.length;
    }
    const text = new TextDecoder().decode(Buffer.concat(chunks));
    if (text.includes("\u0000")) throw new ToolRefusal("the answer is binary, not text");
    return { text, contentType: response.contentType, truncated, readBytes: kept };
  } finally {
    allowance.settle(taken, received);
    onRead(received);
  }
}

const TEXT_TYPES = new Set([
  "",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/json",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-ndjson",
]);

function isText(contentType: string): boolean {
  return (
    contentType.startsWith("text/") ||
    TEXT_TYPES.has(contentType) ||
    contentType.endsWith("+json") ||
    contentType.endsWith("+xml")
  );
}
