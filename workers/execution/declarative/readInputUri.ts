import { guardedRequest, type Lookup } from "../outbound/guardedRequest.ts";
import { OutboundFailure } from "../outbound/outboundFailure.ts";
import type { OutboundPolicy } from "../outbound/outboundPolicy.ts";

/** The most of a run's `input_uri` read: the input a model is given, not a file store. */
export const MAX_INPUT_URI_BYTES = 256 * 1024;

/**
 * The text at a run's `input_uri`, read with one GET through the outbound guard (public HTTPS only,
 * the checked address pinned, no redirects, `MAX_INPUT_URI_BYTES` at most). Fails with an
 * `OutboundFailure` the renter may read, which never quotes the URL.
 */
export async function readInputUri(
  url: string,
  {
    policy,
    signal,
    lookup,
    maxBytes = MAX_INPUT_URI_BYTES,
  }: { policy: OutboundPolicy; signal: AbortSignal; lookup?: Lookup; maxBytes?: number },
): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    const response = await guardedRequest(
      url,
      { method: "GET", headers: { accept: "text/*, application/json, */*;q=0.5" }, signal },
      { policy, ...(lookup && { lookup }), maxResponseBytes: maxBytes },
    );
    if (response.status < 200 || response.status >= 300) {
      response.close();
      throw new OutboundFailure(`it answered HTTP ${response.status}`);
    }
    for await (const chunk of response.body) chunks.push(chunk);
  } catch (error) {
    if (error instanceof OutboundFailure) throw unreadable(error.message);
    throw error;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw unreadable("it is not UTF-8 text");
  }
}

function unreadable(why: string): OutboundFailure {
  return new OutboundFailure(`the run's input_uri could not be read: ${why}`);
}
