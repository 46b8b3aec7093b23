import { once } from "node:events";
import {
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { anthropicProtocol } from "./anthropicProtocol.ts";
import type { ChatRequest } from "./chatRequest.ts";
import { isRecord } from "./isRecord.ts";
import { openaiProtocol } from "./openaiProtocol.ts";
import { planAnswer } from "./planAnswer.ts";
import type { IdSource, ProtocolAdapter, VendorError } from "./protocolAdapter.ts";
import { readBoundedBody } from "./readBoundedBody.ts";
import type { RecordedRequest, VendorProtocol } from "./recordedRequest.ts";
import type { ReplyTiming, ScriptedError, ScriptedReply } from "./scriptedReply.ts";
import { sendEvents, sendJson } from "./sendAnswer.ts";

/** Larger bodies are answered 413, as the vendors refuse oversized requests. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Where each protocol lives on the emulator; self-hosted servers ask for no key. */
export const ROUTES = {
  openai: {
    prefix: "/openai/v1",
    endpoint: "/chat/completions",
    adapter: openaiProtocol,
    keyed: true,
  },
  anthropic: {
    prefix: "/anthropic",
    endpoint: "/v1/messages",
    adapter: anthropicProtocol,
    keyed: true,
  },
  self_hosted: {
    prefix: "/self-hosted/v1",
    endpoint: "/chat/completions",
    adapter: openaiProtocol,
    keyed: false,
  },
} satisfies Record<VendorProtocol, Route>;

type Route = { prefix: string; endpoint: string; adapter: ProtocolAdapter; keyed: boolean };

/** What a request may read and change on the emulator. */
export type EmulatorState = {
  /** The API keys accepted; any non-empty key when absent. */
  keys: ReadonlySet<string> | undefined;
  /** The next reply scripted for the request's model, else the emulator's own answer, if any. */
  takeScriptedReply(request: ChatRequest): ScriptedReply | undefined;
  record(request: RecordedRequest): void;
  ids: IdSource;
};

/** Answers one request: routes it, checks its key and body, then gives the scripted or default answer. */
export async function handleVendorRequest(
  request: IncomingMessage,
  response: ServerResponse,
  state: EmulatorState,
): Promise<void> {
  const clientGone = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) clientGone.abort();
  });
  const path = request.url ?? "/";
  const pathname = new URL(path, "http://emulator").pathname;
  const protocol = protocolFor(pathname);
  const route = protocol && ROUTES[protocol];
  const adapter = route?.adapter ?? openaiProtocol;
  const requestId = state.ids("req_emu");
  const baseHeaders = { [adapter.requestIdHeader]: requestId };
  const fail = (error: VendorError, headers: OutgoingHttpHeaders = {}) =>
    sendJson(
      response,
      error.status,
      { ...baseHeaders, ...headers },
      adapter.errorBody(error, requestId),
    );

  const body = await readBoundedBody(request, MAX_BODY_BYTES);
  const parsed = "text" in body ? parseJson(body.text) : undefined;
  const apiKey = adapter.apiKeyOf(request.headers);
  state.record({
    protocol,
    method: request.method ?? "",
    path,
    model:
      isRecord(parsed?.value) && typeof parsed.value.model === "string"
        ? parsed.value.model
        : undefined,
    apiKey,
    headers: { ...request.headers },
    body: parsed?.value,
    receivedAt: Date.now(),
  });

  if (!route || pathname !== route.prefix + route.endpoint) {
    return fail({ status: 404, message: `Unknown request URL: ${request.method} ${pathname}` });
  }
  if (request.method !== "POST") {
    return fail({ status: 405, message: `Method ${request.method} is not allowed on ${pathname}` });
  }
  if (route.keyed && (apiKey === undefined || (state.keys && !state.keys.has(apiKey)))) {
    return fail(adapter.authenticationError(apiKey));
  }
  if ("tooLarge" in body) {
    return fail({ status: 413, message: `The request body exceeds ${MAX_BODY_BYTES} bytes.` });
  }
  if (!parsed?.ok) {
    return fail({ status: 400, message: "The request body is not valid JSON." });
  }
  const chatRequest = adapter.parseRequest(parsed.value);
  if ("invalid" in chatRequest) return fail({ status: 400, message: chatRequest.invalid });

  const scripted = state.takeScriptedReply(chatRequest);
  const answer = planAnswer(chatRequest, scripted);
  const timing: ReplyTiming = scripted ?? {};
  if (timing.delayMs) await sleep(timing.delayMs, undefined, { signal: clientGone.signal });

  switch (answer.kind) {
    case "hang":
      if (!clientGone.signal.aborted) await once(clientGone.signal, "abort");
      return;
    case "error": {
      const { status, type, code } = answer.error;
      const message = errorMessage(answer.error, apiKey);
      return fail({ status, type, code, message }, errorHeaders(answer.error));
    }
    case "message":
      if (chatRequest.stream) {
        const events = adapter.streamEvents(answer, chatRequest, state.ids);
        return sendEvents(response, baseHeaders, events, timing, clientGone.signal);
      }
      return sendJson(
        response,
        200,
        baseHeaders,
        adapter.completion(answer, chatRequest, state.ids),
        timing.cutAfterChunks,
      );
  }
}

function protocolFor(pathname: string): VendorProtocol | undefined {
  const entries = Object.entries(ROUTES) as [VendorProtocol, Route][];
  return entries.find(([, { prefix }]) => pathname.startsWith(`${prefix}/`))?.[0];
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; value: undefined } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

function errorMessage(error: ScriptedError, apiKey: string | undefined): string {
  const message = error.message ?? STATUS_CODES[error.status] ?? `Error ${error.status}`;
  return error.echoApiKey ? `${message} (API key: ${apiKey ?? "none"})` : message;
}

function errorHeaders({ retryAfterSeconds, headers }: ScriptedError): OutgoingHttpHeaders {
  return {
    ...(retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) }),
    ...headers,
  };
}
