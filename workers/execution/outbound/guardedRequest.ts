import { lookup as dnsLookup } from "node:dns/promises";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { request } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { createSecureContext, getCACertificates, type SecureContext } from "node:tls";
import { isForbiddenAddress } from "./forbiddenAddress.ts";
import { OutboundFailure, OutboundRefusal } from "./outboundFailure.ts";
import type { OutboundPolicy } from "./outboundPolicy.ts";

/** The most an endpoint's answer may hold: far above any output a renter reads, far below memory. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** How long an endpoint may take to accept a connection and finish the TLS handshake. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Every address a name resolves to, as `dns.lookup` with `all: true` gives them. */
export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true });

export type GuardedResponse = {
  status: number;
  /** The media type, lowercased, without parameters; "" when the endpoint sent none. */
  contentType: string;
  /** The response headers, names lowercased; a repeated header's values joined by ", ". */
  headers: Record<string, string>;
  /**
   * The body as it arrives. Iterating it throws an `OutboundFailure` once it exceeds the size cap
   * or the signal aborts; leaving the loop early closes the connection.
   */
  body: AsyncIterable<Buffer>;
  /** Closes the connection without reading (what is left of) the body. */
  close: () => void;
};

export type GuardedRequest = {
  method: "GET" | "POST";
  headers: Record<string, string>;
  /** Sent as it is, with its length; none for a GET. */
  body?: string | Uint8Array;
  signal: AbortSignal;
};

export type GuardedRequestOptions = {
  policy: OutboundPolicy;
  /** Resolves names; `dns.lookup` unless a test answers for it. */
  lookup?: Lookup;
  maxResponseBytes?: number;
  connectTimeoutMs?: number;
};

/**
 * Sends one request to a URL someone outside gave us, so it can reach nothing but the public
 * internet: HTTPS only; the name resolved once and every address it has checked (private,
 * loopback, link-local, metadata, multicast and the IPv4-mapped forms of them are refused unless
 * the policy allows private addresses); the connection pinned to the checked address, so a second
 * answer from DNS (rebinding) is never asked for, while TLS still verifies the certificate for the
 * name; no redirect followed (a 3xx fails); the answer capped at `maxResponseBytes`; connecting
 * bounded by `connectTimeoutMs` and everything by `signal`. Answers with any other status are
 * returned.
 */
export async function guardedRequest(
  url: string,
  { method, headers, body, signal }: GuardedRequest,
  {
    policy,
    lookup = systemLookup,
    maxResponseBytes = MAX_RESPONSE_BYTES,
    connectTimeoutMs = CONNECT_TIMEOUT_MS,
  }: GuardedRequestOptions,
): Promise<GuardedResponse> {
  const target = parseHttpsUrl(url);
  const pinned = await resolvePermitted(target.hostname, lookup, policy, signal);
  if (signal.aborted) throw deadlinePassed();

  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(
      {
        method,
        host: target.hostname,
        port: target.port || 443,
        path: `${target.pathname}${target.search}`,
        headers: {
          ...headers,
          ...(body !== undefined && { "content-length": String(Buffer.byteLength(body)) }),
        },
        lookup: pinnedLookup(pinned),
        // A connection of its own: none is reused from a pool after its address was checked.
        agent: false,
        ...(policy.extraCa !== undefined && { secureContext: trustingAlso(policy.extraCa) }),
        signal,
      },
      resolve,
    );
    outgoing.on("error", (error) => reject(asOutboundFailure(error, signal)));
    outgoing.on("socket", (socket) => {
      const timer = setTimeout(
        () =>
          outgoing.destroy(
            new OutboundFailure(
              `the endpoint did not accept a connection within ${connectTimeoutMs / 1000} s`,
            ),
          ),
        connectTimeoutMs,
      );
      socket.once("secureConnect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    });
    if (body === undefined) outgoing.end();
    else outgoing.end(body);
  });

  // A failure mid-body reaches whoever reads it through `body`; unread, it must not go unhandled.
  response.on("error", () => {});
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    response.destroy();
    throw new OutboundRefusal("the endpoint answered with a redirect, which is not followed");
  }
  const declaredLength = Number(response.headers["content-length"] ?? 0);
  if (declaredLength > maxResponseBytes) {
    response.destroy();
    throw tooLarge(maxResponseBytes);
  }
  return {
    status,
    contentType: (response.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "",
    headers: joinedHeaders(response.headers),
    body: cappedBody(response, maxResponseBytes, signal),
    close: () => response.destroy(),
  };
}

function joinedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) joined[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return joined;
}

/** TLS contexts trusting the default roots and one more CA, by that CA's PEM. */
const contexts = new Map<string, SecureContext>();

/**
 * A TLS context trusting the default roots and `extraCa`, made once per CA: parsing every root
 * again for each call cost milliseconds of CPU per run.
 */
function trustingAlso(extraCa: string): SecureContext {
  let context = contexts.get(extraCa);
  if (!context) {
    context = createSecureContext({ ca: [...getCACertificates("default"), extraCa] });
    contexts.set(extraCa, context);
  }
  return context;
}

function parseHttpsUrl(url: string): {
  hostname: string;
  port: string;
  pathname: string;
  search: string;
} {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundRefusal("the endpoint's URL is not valid");
  }
  if (parsed.protocol !== "https:") throw new OutboundRefusal("the endpoint is not an HTTPS URL");
  if (parsed.username || parsed.password) {
    throw new OutboundRefusal("the endpoint's URL must not carry credentials");
  }
  // The WHATWG parser has already turned every IPv4 spelling (`2130706433`, `0x7f.1`) into dotted
  // form; an IPv6 literal keeps its brackets.
  return {
    hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port,
    pathname: parsed.pathname,
    search: parsed.search,
  };
}

/** The address to connect to: the first of all the name's addresses, once every one is checked. */
async function resolvePermitted(
  hostname: string,
  lookup: Lookup,
  policy: OutboundPolicy,
  signal: AbortSignal,
): Promise<{ address: string; family: number }> {
  const family = isIP(hostname);
  let addresses: { address: string; family: number }[];
  if (family !== 0) {
    addresses = [{ address: hostname, family }];
  } else {
    try {
      addresses = await untilAborted(lookup(hostname), signal);
    } catch {
      throw signal.aborted
        ? deadlinePassed()
        : new OutboundFailure("the endpoint's name does not resolve");
    }
  }
  const [first] = addresses;
  if (!first) throw new OutboundFailure("the endpoint's name does not resolve");
  // One forbidden address refuses the name: a client picking among them could land on it.
  if (
    !policy.allowPrivateAddresses &&
    addresses.some(({ address }) => isForbiddenAddress(address))
  ) {
    throw new OutboundRefusal("the endpoint's address is not a public internet address");
  }
  return first;
}

/** `promise`, or a rejection as soon as `signal` aborts (a resolver may take longer than a run). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** A `lookup` for the socket that answers the address already checked, whatever it is asked. */
function pinnedLookup({ address, family }: { address: string; family: number }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

async function* cappedBody(
  response: IncomingMessage,
  maxResponseBytes: number,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  let received = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > maxResponseBytes) throw tooLarge(maxResponseBytes);
      yield chunk;
    }
  } catch (error) {
    throw asOutboundFailure(error, signal);
  } finally {
    response.destroy();
  }
}

function tooLarge(maxResponseBytes: number): OutboundFailure {
  return new OutboundFailure(
    `the endpoint's answer is larger than ${Math.round(maxResponseBytes / 1024)} KB`,
  );
}

function deadlinePassed(): OutboundFailure {
  return new OutboundFailure("the run's deadline passed before the endpoint finished answering");
}

/** Node's error, as the renter may read it: which kind of failure, never where. */
function asOutboundFailure(error: unknown, signal: AbortSignal): OutboundFailure {
  if (error instanceof OutboundFailure) return error;
  if (signal.aborted) return deadlinePassed();
  const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? "");
  if (/CERT|VERIFY|ISSUER|SELF_SIGNED|^ERR_TLS|^ERR_SSL/.test(code)) {
    return new OutboundFailure("the endpoint's TLS certificate is not trusted for its name");
  }
  if (code === "ECONNREFUSED") return new OutboundFailure("the endpoint refused the connection");
  if (code === "ECONNRESET" || code === "EPIPE") {
    return new OutboundFailure("the endpoint closed the connection before it finished answering");
  }
  return new OutboundFailure("the endpoint could not be reached");
}
