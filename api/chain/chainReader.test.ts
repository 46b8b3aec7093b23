// The request path's JSON-RPC reads against nodes that answer, fail, drop connections, never answer
// or answer too much: each ends in a result or in the viem error the API maps to 503, in time.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpRequestError, RpcRequestError, TimeoutError } from "viem";
import { afterEach, describe, expect, it } from "vitest";
import { isChainUnavailable } from "../../lib/chain/isChainUnavailable.ts";
import { CHAIN_READ_DEADLINE_MS } from "../limits.ts";
import { createChainReader } from "./chainReader.ts";

let server: Server | undefined;
afterEach(stopNode);

async function stopNode() {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** A node on a free loopback port answering each call with `handle`; returns its URL. */
async function node(handle: Handler, userinfo = ""): Promise<string> {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => handle(request, response, body));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://${userinfo}127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function answer(response: ServerResponse, body: unknown) {
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function failure(read: Promise<unknown>): Promise<unknown> {
  return read.then(
    () => expect.fail("the read succeeded"),
    (error: unknown) => error,
  );
}

describe("a JSON-RPC read of the chain", () => {
  it("sends the call and gives its result, over one kept-alive connection", async () => {
    const calls: { method: string; params: unknown[] }[] = [];
    const connections = new Set<unknown>();
    const url = await node((request, response, body) => {
      connections.add(request.socket);
      const call = JSON.parse(body);
      calls.push({ method: call.method, params: call.params });
      answer(response, { jsonrpc: "2.0", id: call.id, result: "0x2a" });
    });
    const reader = createChainReader(url);
    expect(await reader.read("eth_blockNumber", [])).toBe("0x2a");
    expect(await reader.read("eth_call", [{ to: "0x01" }, "0x1"])).toBe("0x2a");
    expect(calls).toEqual([
      { method: "eth_blockNumber", params: [] },
      { method: "eth_call", params: [{ to: "0x01" }, "0x1"] },
    ]);
    expect(connections.size).toBe(1);
  });

  it("authenticates with the URL's user and password", async () => {
    let authorization: string | undefined;
    const url = await node((request, response, body) => {
      authorization = request.headers.authorization;
      answer(response, { jsonrpc: "2.0", id: JSON.parse(body).id, result: "0x1" });
    }, "reader:s%40cret@");
    await createChainReader(url).read("eth_blockNumber", []);
    expect(authorization).toBe(`Basic ${Buffer.from("reader:s@cret").toString("base64")}`);
  });

  it("gives a node's JSON-RPC error as an RpcRequestError", async () => {
    const url = await node((_request, response, body) =>
      answer(response, {
        jsonrpc: "2.0",
        id: JSON.parse(body).id,
        error: { code: -32005, message: "limit exceeded" },
      }),
    );
    const error = await failure(createChainReader(url).read("eth_blockNumber", []));
    expect(error).toBeInstanceOf(RpcRequestError);
    expect((error as RpcRequestError).code).toBe(-32005);
    expect(isChainUnavailable(error)).toBe(true);
  });

  it("tries a dropped connection once more, and gives up on a second as an HttpRequestError", async () => {
    let calls = 0;
    const url = await node((request, response, body) => {
      calls++;
      if (calls === 1) request.socket.destroy();
      else answer(response, { jsonrpc: "2.0", id: JSON.parse(body).id, result: "0x7" });
    });
    expect(await createChainReader(url).read("eth_blockNumber", [])).toBe("0x7");

    const dropping = await node((request) => request.socket.destroy());
    const error = await failure(createChainReader(dropping).read("eth_blockNumber", []));
    expect(error).toBeInstanceOf(HttpRequestError);
    expect(isChainUnavailable(error)).toBe(true);
  });

  it("gives a 502, twice, and an answer that is not JSON-RPC as HttpRequestErrors", async () => {
    const url = await node((_request, response) => response.writeHead(502).end("bad gateway"));
    const error = await failure(createChainReader(url).read("eth_blockNumber", []));
    expect((error as HttpRequestError).status).toBe(502);
    await stopNode();

    const html = await node((_request, response) => response.writeHead(200).end("<html>"));
    expect(await failure(createChainReader(html).read("eth_blockNumber", []))).toBeInstanceOf(
      HttpRequestError,
    );
  });

  it("ends a read the node never answers at its deadline, as a TimeoutError", async () => {
    const url = await node(() => {});
    const error = await failure(createChainReader(url).read("eth_blockNumber", []));
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("takes an answer that came while the process was too busy to read it, past the deadline", async () => {
    // The node is another process, answering 300 ms after each call while this one is busy.
    const node = spawn(process.execPath, [
      "-e",
      `require("node:http").createServer((q, a) => { q.resume(); q.on("end", () => setTimeout(() =>
        a.end('{"jsonrpc":"2.0","id":1,"result":"0x5"}'), 300)); })
        .listen(0, "127.0.0.1", function () { console.log(this.address().port); });`,
    ]);
    try {
      const [port] = await once(node.stdout, "data");
      const read = createChainReader(`http://127.0.0.1:${String(port).trim()}`).read(
        "eth_blockNumber",
        [],
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Busy past the deadline, to the end of a turn of the event loop: the next turn begins with
      // the deadline's timer overdue and the answer waiting in the socket.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const busyUntil = Date.now() + CHAIN_READ_DEADLINE_MS + 200;
          while (Date.now() < busyUntil);
          resolve();
        }),
      );
      expect(await read).toBe("0x5");
    } finally {
      node.kill();
    }
  });

  it("stops reading an answer past 4 MB", async () => {
    const url = await node((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let n = 0; n < 8; n++) response.write(chunk);
      response.end("{}");
    });
    const error = await failure(createChainReader(url).read("eth_blockNumber", []));
    expect(error).toBeInstanceOf(HttpRequestError);
  });
});
