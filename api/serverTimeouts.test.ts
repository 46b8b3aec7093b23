// The server's slow-client limits bound receiving a request, never answering it: an execution may
// answer after a run of up to 300 s, or stream it with long quiet spells, past REQUEST_TIMEOUT_MS
// (30 s). Shown here with the limits scaled down to a second, on a real socket.
import { connect } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../devStack/findFreePort.ts";
import { httpServerOptions } from "./http/httpServerOptions.ts";

const REQUEST_TIMEOUT_MS = 1_000;
const LATER_MS = 2_500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: ServerType;
let url: string;

beforeAll(async () => {
  const app = new Hono();
  app.post("/slow", async (c) => {
    await c.req.text();
    await sleep(LATER_MS);
    return c.json({ answered: true });
  });
  // The body of a client cut off never arrives: reading it fails, as expected here.
  app.post("/upload", async (c) => c.text(await c.req.text().catch(() => "")));
  app.post("/quiet-stream", async (c) => {
    await c.req.text();
    return streamSSE(c, async (stream) => {
      await stream.writeSSE({ event: "output", data: "first" });
      await sleep(LATER_MS);
      await stream.writeSSE({ event: "done", data: "last" });
    });
  });
  const port = await findFreePort();
  url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve) => {
    server = serve(
      {
        fetch: app.fetch,
        port,
        hostname: "127.0.0.1",
        serverOptions: httpServerOptions({
          headersTimeoutMs: REQUEST_TIMEOUT_MS / 2,
          requestTimeoutMs: REQUEST_TIMEOUT_MS,
        }),
      },
      () => resolve(),
    );
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("the server's request timeout", () => {
  it("does not cut an answer that comes after it", async () => {
    const reply = await fetch(`${url}/slow`, { method: "POST", body: "{}" });
    expect(await reply.json()).toEqual({ answered: true });
  });

  it("does not cut a stream that stays quiet past it", async () => {
    const reply = await fetch(`${url}/quiet-stream`, { method: "POST", body: "{}" });
    expect(await reply.text()).toBe("event: output\ndata: first\n\nevent: done\ndata: last\n\n");
  });

  it("still cuts a client that takes longer to send its request", async () => {
    const { port } = new URL(url);
    const answer = await new Promise<string>((resolve, reject) => {
      let received = "";
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{");
      });
      socket.on("data", (chunk) => {
        received += chunk.toString();
      });
      socket.on("close", () => resolve(received));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });
});
