// A JSON-RPC proxy in front of the chain that records the methods asked through it, and can fail some,
// to show what a request costs the node and how an outage in the middle of one is answered. Given
// `maxLogBlocks`, it refuses an `eth_getLogs` over more blocks, as hosted providers do.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type CountingRpcProxy = Awaited<ReturnType<typeof startCountingRpcProxy>>;

/** `fail(EVERY_METHOD)`: the chain is unreachable for every request. */
export const EVERY_METHOD = "*";

/** What providers that cap `eth_getLogs` answer past their range: JSON-RPC "limit exceeded". */
export const LOG_RANGE_REFUSED = -32005;

export async function startCountingRpcProxy(
  rpcUrl: string,
  { maxLogBlocks }: { maxLogBlocks?: number } = {},
) {
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
    const call = JSON.parse(body) as RpcCall | RpcCall[];
    const calls = [call].flat();
    methods.push(...calls.map((call) => call.method));
    if (failing.has(EVERY_METHOD) || calls.some((call) => failing.has(call.method))) {
      response.writeHead(502).end("the chain is unreachable");
      return;
    }
    if (
      maxLogBlocks !== undefined &&
      !Array.isArray(call) &&
      call.method === "eth_getLogs" &&
      (await logBlocks(rpcUrl, call)) > maxLogBlocks
    ) {
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: call.id,
          error: {
            code: LOG_RANGE_REFUSED,
            message: `query exceeds max block range ${maxLogBlocks}`,
          },
        }),
      );
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
    /** How many requests for `method` it has been asked so far. */
    asked(method: string): number {
      return methods.filter((asked) => asked === method).length;
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

type RpcCall = { id: number; method: string; params: unknown[] };

/** How many blocks an `eth_getLogs` call spans, its tags read as the chain's head (none by hash). */
async function logBlocks(rpcUrl: string, call: RpcCall): Promise<number> {
  const filter = (call.params[0] ?? {}) as {
    fromBlock?: string;
    toBlock?: string;
    blockHash?: string;
  };
  if (filter.blockHash !== undefined) return 1;
  const block = async (tag = "latest") => {
    if (tag === "earliest") return 0;
    if (tag.startsWith("0x")) return Number(tag);
    const answer = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
    });
    return Number(((await answer.json()) as { result: string }).result);
  };
  return (await block(filter.toBlock)) - (await block(filter.fromBlock)) + 1;
}
