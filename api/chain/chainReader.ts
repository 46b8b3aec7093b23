import http from "node:http";
import https from "node:https";
import { HttpRequestError, RpcRequestError, TimeoutError } from "viem";
import { CHAIN_READ_DEADLINE_MS, CHAIN_READ_RETRIES } from "../limits.ts";
import type { ChainHeads } from "./chainHeads.ts";

/** The most one answer may hold: a block's header with its transactions' hashes is far less. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export type ChainReader = {
  /** The `result` of one JSON-RPC call, or a viem error saying why there is none. */
  read: (method: string, params: unknown[]) => Promise<unknown>;
  /** The newest block as the node announces it, where it does (`watchChainHeads`). */
  heads?: ChainHeads;
};

type Answer = { status: number; text: string };
type RpcAnswer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/**
 * The JSON-RPC reads of the request path (the latest block, `getAccessState`) over keep-alive
 * connections of `node:http`: a fifth of the CPU of the same read through viem's client and its
 * `fetch`, which every credential check paid. Bounded like the client (`createChainClient`): each
 * read, its retry included, ends within `CHAIN_READ_DEADLINE_MS`; failures are viem's errors
 * (`HttpRequestError`, `TimeoutError`, `RpcRequestError`), told apart as the client's are.
 */
export function createChainReader(rpcUrl: string, heads?: ChainHeads): ChainReader {
  const url = new URL(rpcUrl);
  const transport = url.protocol === "https:" ? https : http;
  const agent = new transport.Agent({ keepAlive: true });
  // A user and password in the URL become its Basic authorization, as `fetch` would send them.
  const headers = { "content-type": "application/json" };
  let nextId = 0;

  function post(body: string, signal: AbortSignal): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = transport.request(
        url,
        { method: "POST", agent, headers, signal },
        (answer) => {
          const chunks: Buffer[] = [];
          let size = 0;
          answer.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) answer.destroy(new Error("The answer is too large"));
            else chunks.push(chunk);
          });
          answer.on("error", reject);
          answer.on("end", () =>
            resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
          );
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }

  /** `call`, sent as `body`, tried again once after a dropped connection or a 5xx / 429. */
  async function attempts(
    call: Record<string, unknown>,
    body: string,
    deadline: AbortSignal,
  ): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const retry = attempt < CHAIN_READ_RETRIES;
      let answer: Answer;
      try {
        answer = await post(body, deadline);
      } catch (error) {
        if (deadline.aborted) throw new TimeoutError({ body: call, url: rpcUrl });
        if (retry) continue;
        throw new HttpRequestError({ body: call, url: rpcUrl, cause: error as Error });
      }
      if (answer.status !== 200) {
        if (retry && (answer.status >= 500 || answer.status === 429)) continue;
        throw new HttpRequestError({ body: call, url: rpcUrl, status: answer.status });
      }
      const parsed = parseAnswer(answer.text);
      if (!parsed) {
        throw new HttpRequestError({ body: call, url: rpcUrl, details: "not a JSON-RPC answer" });
      }
      if (parsed.error) {
        throw new RpcRequestError({ body: call, error: parsed.error, url: rpcUrl });
      }
      return parsed.result;
    }
  }

  return {
    heads,
    async read(method, params) {
      const call = { jsonrpc: "2.0", id: ++nextId, method, params };
      const deadline = lateDeadline(CHAIN_READ_DEADLINE_MS);
      try {
        return await attempts(call, JSON.stringify(call), deadline.signal);
      } finally {
        deadline.clear();
      }
    },
  };
}

/**
 * A signal aborted `ms` from now, once the event loop has read what its sockets hold: a process too
 * busy to run its timers on time must not take its own lateness for the node's silence.
 */
function lateDeadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => setImmediate(() => controller.abort()), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

function parseAnswer(text: string): RpcAnswer | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as RpcAnswer) : undefined;
  } catch {
    return undefined;
  }
}
