import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  asksForProgress,
  initializes,
  mcpPayload,
  readMessages,
  rpcErrorResponse,
} from "../mcp/mcpMessages.ts";
import { mcpServer } from "../mcp/mcpServer.ts";
import { AUTHENTICATED, CHARGING_RULE } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerIdentity } from "../process/context.ts";

export const mcpRoutes = new DescribedRoutes("/mcp");

/**
 * The Model Context Protocol over Streamable HTTP, stateless: a server and a transport per request
 * (docs/mcp.md). The answer is JSON, or a stream of events when a request asks for progress.
 */
mcpRoutes.post(
  "/",
  {
    tag: "Execution",
    summary: "The Model Context Protocol server",
    description:
      "MCP over Streamable HTTP (docs/mcp.md), stateless: `tools/list` lists one tool per " +
      "listing the caller holds a valid credential for, and `search_listings` and `get_listing`, " +
      "which cost nothing; `tools/call` runs a task as `POST /v1/execute` does. Send `Accept: " +
      "application/json, text/event-stream`. The answer is JSON, or a stream of events " +
      "(`text/event-stream`) when a request asks for progress (`_meta.progressToken`), which " +
      "carries the output's deltas as `notifications/progress`. A body that is not JSON-RPC is " +
      "answered 400 with a JSON-RPC error, and `GET` and `DELETE` 405. " +
      CHARGING_RULE,
    security: "bearer",
    body: mcpPayload,
    answer: {
      status: 200,
      description: "The JSON-RPC answers",
      schema: answers.mcpAnswer,
      headers: {
        "Mcp-Session-Id":
          "On the answer to `initialize`: send it back on later requests, so that a retried " +
          "`tools/call` (the same request id) is the same run",
      },
    },
    errors: ["payload_too_large", ...AUTHENTICATED],
  },
  async (c) => {
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
  },
);

/** No stream of server-initiated messages, and no session to end: a stateless server has neither. */
mcpRoutes.routes.on(["GET", "DELETE"], "/", () => {
  const response = rpcErrorResponse(405, -32000, "Method not allowed: this server takes POST only");
  response.headers.set("Allow", "POST");
  return response;
});
