// A local stand-in for the hosted model vendors and self-hosted model servers, for development and
// tests: the official `openai` and `@anthropic-ai/sdk` clients run against it unmodified.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { ChatRequest } from "./chatRequest.ts";
import { type EmulatorState, handleVendorRequest, ROUTES } from "./handleVendorRequest.ts";
import type { RecordedRequest } from "./recordedRequest.ts";
import type { ScriptedContent, ScriptedReply } from "./scriptedReply.ts";

export type VendorEmulatorOptions = {
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** Defaults to a free port. */
  port?: number;
  /** PEM key and certificate: the emulator then speaks HTTPS. */
  tls?: { key: string; cert: string };
  /** The API keys accepted; any non-empty key when absent. */
  keys?: string[];
  /**
   * The answer to a request nothing is scripted for (`npm start` answers its demo agents so);
   * undefined leaves it the default answer.
   */
  answer?: (request: ChatRequest) => ScriptedContent | undefined;
};

export type VendorEmulator = {
  /** The origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** What `new OpenAI({ baseURL })` takes. */
  openaiBaseUrl: string;
  /** What `new Anthropic({ baseURL })` takes. */
  anthropicBaseUrl: string;
  /** An OpenAI-compatible server (as vLLM, llama.cpp and Ollama serve); it asks for no key. */
  selfHostedBaseUrl: string;
  /**
   * Queues replies for the requests naming `model`, given in order, one per request; further
   * calls add to the queue. Once it is empty, such requests get the `answer` option's answer or the
   * default one: text quoting the last user message, or a value of the requested schema.
   */
  script(model: string, replies: ScriptedReply[]): void;
  /** Every request received, in order (clear it with `requests.length = 0`). */
  requests: RecordedRequest[];
  /** Closes the server, and with it every open connection, hanging ones included. */
  stop(): Promise<void>;
};

/** Starts an emulator on a loopback port (by default a free one). */
export async function startVendorEmulator(
  options: VendorEmulatorOptions = {},
): Promise<VendorEmulator> {
  const { host = "127.0.0.1", port = 0, tls, keys, answer } = options;
  const scripts = new Map<string, ScriptedReply[]>();
  const requests: RecordedRequest[] = [];
  let lastId = 0;
  const state: EmulatorState = {
    keys: keys && new Set(keys),
    takeScriptedReply: (request) => scripts.get(request.model)?.shift() ?? answer?.(request),
    record: (request) => requests.push(request),
    ids: (prefix) => `${prefix}${++lastId}`,
  };

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    handleVendorRequest(request, response, state).catch((error: unknown) => {
      if (response.destroyed) return;
      console.error("vendor emulator:", error);
      response.destroy();
    });
  };
  const server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert }, listener)
    : createHttpServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const { port: boundPort } = server.address() as AddressInfo;
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  const url = `${tls ? "https" : "http"}://${hostInUrl}:${boundPort}`;
  return {
    url,
    openaiBaseUrl: url + ROUTES.openai.prefix,
    anthropicBaseUrl: url + ROUTES.anthropic.prefix,
    selfHostedBaseUrl: url + ROUTES.self_hosted.prefix,
    script(model, replies) {
      scripts.set(model, [...(scripts.get(model) ?? []), ...replies]);
    },
    requests,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
