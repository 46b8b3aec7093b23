import { createHash } from "node:crypto";
import {
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  McpError,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { parseApiListingId, toApiListingId } from "../../lib/ids/listingId.ts";
import { spendingKeyOf } from "../execution/startExecution.ts";
import { checkScope } from "../middleware/requireScope.ts";
import type { ApiDeps, Identity } from "../process/context.ts";
import { DISCOVERY_TOOLS } from "./discoveryTools.ts";
import { refusalOf } from "./mcpErrors.ts";
import type { McpCaller } from "./mcpServer.ts";
import { rentedAgents } from "./rentedAgents.ts";
import { runRentedTool } from "./runRentedTool.ts";
import { MAX_TOOL_NAME_LENGTH } from "./toolNames.ts";
import { toolError } from "./toolResults.ts";

/** What a `tools/call` brings besides its parameters. */
export type CallContext = {
  requestId: RequestId;
  /** Set when the client asked for progress: each delta of output is then a notification. */
  progressToken: string | number | undefined;
  notify: (notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message: string };
  }) => Promise<void>;
};

/**
 * `tools/call`: a discovery tool, or a task run on the listing the name names. Refusals are tool
 * errors; an unknown or overlong name is the protocol's invalid-params error.
 */
export async function callTool(
  caller: McpCaller,
  { name, arguments: args = {} }: CallToolRequest["params"],
  { requestId, progressToken, notify }: CallContext,
): Promise<CallToolResult> {
  if (name.length > MAX_TOOL_NAME_LENGTH) {
    throw new McpError(ErrorCode.InvalidParams, "Tool names are at most 128 characters");
  }
  const { deps, identity } = caller;
  try {
    const discovery = DISCOVERY_TOOLS.get(name);
    if (discovery) {
      checkScope(identity, "read");
      return await discovery.call(deps, args);
    }
    checkScope(identity, "run");
    const listingId = await listingOfTool(deps, identity, name);
    if (!listingId) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return await runRentedTool(deps, {
      wallet: identity.wallet,
      listingId,
      arguments: args,
      idempotencyKey: idempotencyKeyOf(caller.sessionId, requestId),
      apiKey: spendingKeyOf(identity),
      signal: caller.signal,
      onOutput:
        progressToken === undefined
          ? undefined
          : (delta, received) => {
              // A client gone mid-run: the run goes on, its result kept for GET /v1/runs/:run_id.
              void notify({
                method: "notifications/progress",
                params: { progressToken, progress: received, message: delta },
              }).catch(() => {});
            },
    });
  } catch (error) {
    const refusal = refusalOf(caller, error);
    if (refusal) return toolError(refusal);
    throw error;
  }
}

/** The listing a tool name names: one of the caller's rented agents by its tool name, or any by id. */
async function listingOfTool(
  deps: ApiDeps,
  { wallet }: Identity,
  name: string,
): Promise<string | undefined> {
  if (parseApiListingId(name)) return name;
  const agent = (await rentedAgents(deps, wallet)).find(({ toolName }) => toolName === name);
  return agent && toApiListingId(agent.onChainListingId);
}

/**
 * The Idempotency-Key of a `tools/call`: its JSON-RPC request id within the client's MCP session,
 * which MCP requires be used once per session, so a retried call is the same run. A client without
 * a session has no key: another session's request ids would be its own again.
 */
function idempotencyKeyOf(sessionId: string | undefined, requestId: RequestId) {
  if (sessionId === undefined) return undefined;
  const scope = JSON.stringify([sessionId, requestId]);
  return `mcp:${createHash("sha256").update(scope).digest("hex")}`;
}
