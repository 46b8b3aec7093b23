import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ApiDeps, Identity } from "../process/context.ts";
import { callTool } from "./callTool.ts";
import { listTools } from "./listTools.ts";
import { answering } from "./mcpErrors.ts";

const INSTRUCTIONS =
  "Each tool but search_listings and get_listing runs a task on an AI agent you rent on the " +
  "marketplace, exactly as POST /v1/execute does: your credential is checked on-chain, and a " +
  "per-task rental is charged its price when the task delivers output (nothing when it fails " +
  "before any). search_listings and get_listing read the catalogue and cost nothing. A tool's " +
  "name may also be a listing id (lst_…), for a listing you rent under another name.";

/** Who calls, over which MCP session, and until when answers are awaited. */
export type McpCaller = {
  deps: ApiDeps;
  identity: Identity;
  /** The HTTP request's id, for the logs. */
  requestId: string;
  /** The client's `Mcp-Session-Id`: within it a request id names one run. */
  sessionId: string | undefined;
  /** Ends the waiting for runs' answers: the client left, or the process stops. */
  signal: AbortSignal;
};

/**
 * The MCP server of one HTTP request: `tools/list` (the caller's rented agents and the discovery
 * tools) and `tools/call`. Its handlers are the SDK's low-level ones: the tools are typed by the
 * creators' JSON Schemas, which `McpServer.registerTool` would want as zod schemas.
 */
export function mcpServer(caller: McpCaller): McpServer {
  const mcp = new McpServer(
    { name: caller.deps.settings.serviceName, version: "1.0.0" },
    { instructions: INSTRUCTIONS },
  );
  mcp.server.registerCapabilities({ tools: { listChanged: false } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, (request) =>
    answering(caller, "tools/list", () => listTools(caller, request.params?.cursor)),
  );
  mcp.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    answering(caller, "tools/call", () =>
      callTool(caller, request.params, {
        requestId: extra.requestId,
        progressToken: extra._meta?.progressToken,
        notify: extra.sendNotification,
      }),
    ),
  );
  return mcp;
}
