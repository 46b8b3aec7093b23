// A JSON-RPC proxy in front of the chain that records the methods asked through it, and can fail some,
// to show what a request costs the node and how an outage in the middle of one is answered.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type CountingRpcProxy = Awaited<ReturnType<typeof startCountingRpcProxy>>;

/** `fail(EVERY_METHOD)`: the chain is unreachable for every request. */
export const EVERY_METHOD = "*";

export async function startCountingRpcProxy(rpcUrl: string) {
  const methods: string[] = [];
  const failing = new Set<string>();
  let stalling = false;
  let release = () => {};
  let released = new Promise<void>((resolve) => {
    release = resolve;
  });

  const server = createServer(async (request, response) => {
    // JSON-RPC over HTTP only: a WebSocket's upgrade (an API watching the chain's heads) is refused.
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    const body = await readBody(request);
    const calls = [JSON.parse(body)].flat() as { method: string }[];
    methods.push(...calls.map((call) => call.method));
    if (failing.has(EVERY_METHOD) || calls.some((call) => failing.has(call.method))) {
      response.writeHead(502).end("the chain is unreachable");
      return;
    }
    if (stalling) await released;
    const upstream = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    response
      .writeHead(upstream.status, { "content-type": "application/json" })
      .end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    /** The methods asked from now on, in order, as `during` runs. */
    async methodsDuring(during: () => Promise<unknown>): Promise<string[]> {
      const start = methods.length;
      await during();
      return methods.slice(start);
    },
    /** Answers requests for `method` with 502 until `restore()`. */
    fail(method: string) {
      failing.add(method);
    },
    /** Holds every request unanswered until `restore()`: a node that takes calls and never answers. */
    stall() {
      stalling = true;
    },
    restore() {
      failing.clear();
      stalling = false;
      release();
      released = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
