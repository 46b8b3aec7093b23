import { ErrorCode, type ListToolsResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { checkScope } from "../middleware/requireScope.ts";
import { DISCOVERY_TOOLS } from "./discoveryTools.ts";
import type { McpCaller } from "./mcpServer.ts";
import { agentSchemas, runnableAgents } from "./rentedAgents.ts";
import { rentedTool } from "./rentedTools.ts";

/** Rented agents' tools in one `tools/list` page; the discovery tools come first, on the first. */
export const TOOLS_PER_PAGE = 50;

/**
 * `tools/list`: the discovery tools, and a tool for each listing the caller holds a valid
 * credential for (its status at the chain's time `active`), oldest purchase first, a page at a time.
 */
export async function listTools(
  { deps, identity }: McpCaller,
  cursor: string | undefined,
): Promise<ListToolsResult> {
  checkScope(identity, "read");
  const offset = offsetOf(cursor);
  const valid = await runnableAgents(deps, identity.wallet);
  const page = valid.slice(offset, offset + TOOLS_PER_PAGE);
  const schemas = await agentSchemas(
    deps.db,
    page.map(({ onChainListingId }) => onChainListingId),
  );
  const next = offset + page.length;
  return {
    tools: [
      ...(offset === 0 ? [...DISCOVERY_TOOLS.values()].map(({ definition }) => definition) : []),
      ...page.map((agent) => rentedTool(agent, schemas.get(agent.onChainListingId))),
    ],
    ...(next < valid.length && { nextCursor: String(next) }),
  };
}

/** A `tools/list` cursor: the count of rented agents' tools on the pages before. */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
  return Number(cursor);
}
