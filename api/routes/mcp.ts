import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { type AppEnv, callerIdentity } from "../context.ts";
import {
  asksForProgress,
  initializes,
  readMessages,
  rpcErrorResponse,
} from "../mcp/mcpMessages.ts";
import { mcpServer } from "../mcp/mcpServer.ts";

export const mcpRoutes = new Hono<AppEnv>();

/**
 * The Model Context Protocol over Streamable HTTP, stateless: a server and a transport per request
 * (docs/mcp.md). The answer is JSON, or a stream of events when a request asks for progress.
 */
mcpRoutes.post("/", async (c) => {
  const read = await readMessages(c);
  if ("refusal" in read) return read.refusal;
  const { payload } = read;
  const deps = c.get("deps");
  const server = mcpServer({
    deps,
    identity: callerIdentity(c),
    requestId: c.get("requestId"),
    sessionId: c.req.header("mcp-session-id"),
    signal: AbortSignal.any([c.req.raw.signal, deps.stopping]),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !asksForProgress(payload),
  });
  await server.connect(transport);
  const response = await transport.handleRequest(c.req.raw, { parsedBody: payload });
  // Nothing is kept for the session: its id only scopes the client's request ids (idempotency).
  if (initializes(payload) && response.ok) response.headers.set("Mcp-Session-Id", randomUUID());
  return response;
});

/** No stream of server-initiated messages, and no session to end: a stateless server has neither. */
mcpRoutes.on(["GET", "DELETE"], "/", () => {
  const response = rpcErrorResponse(405, -32000, "Method not allowed: this server takes POST only");
  response.headers.set("Allow", "POST");
  return response;
});
