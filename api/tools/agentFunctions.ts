// Each agent the caller may run as a function-calling tool of its own: a call's arguments are the
// body of POST /v1/execute for that agent.
import type { Address } from "viem";
import type { Database } from "../../lib/db/projections.ts";
import type { ChainReader } from "../chain/chainReader.ts";
import type { CatalogueCache } from "../listings/catalogueCache.ts";
import { agentSchemas, type RentedAgent, runnableAgents } from "../mcp/rentedAgents.ts";
import { type AgentSchemas, rentedTool } from "../mcp/rentedTools.ts";
import { type FunctionTool, MAX_FUNCTION_NAME_LENGTH } from "./vendorTools.ts";

/** One function per listing the wallet holds a valid credential for, oldest purchase first. */
export async function agentFunctions(
  deps: { db: Database; catalogue: CatalogueCache; chain: { reader: ChainReader } },
  wallet: Address,
): Promise<FunctionTool[]> {
  const agents = await runnableAgents(deps, wallet);
  const schemas = await agentSchemas(
    deps.db,
    agents.map(({ onChainListingId }) => onChainListingId),
  );
  return agents.map((agent) => agentFunction(agent, schemas.get(agent.onChainListingId)));
}

function agentFunction(agent: RentedAgent, schemas: AgentSchemas | undefined): FunctionTool {
  const tool = rentedTool(agent, schemas);
  return {
    name: functionName(tool.name, agent),
    description: tool.description ?? agent.description,
    parameters: {
      ...tool.inputSchema,
      properties: {
        agent_id: {
          type: "string",
          const: agent.agentId,
          description: `Always "${agent.agentId}": the agent this function runs`,
        },
        ...tool.inputSchema.properties,
      },
      required: ["agent_id", ...(tool.inputSchema.required ?? [])],
    },
  };
}

/**
 * The MCP tool's name, unique among the caller's agents; an agent id past the vendors' limit (a
 * manifest name of over 55 characters that another of the agents shares) is cut before its suffix,
 * the listing's first hex digits, which keep it apart.
 */
function functionName(toolName: string, agent: RentedAgent): string {
  if (toolName.length <= MAX_FUNCTION_NAME_LENGTH) return toolName;
  const suffix = agent.agentId.slice(agent.agentId.lastIndexOf("-"));
  return toolName.slice(0, MAX_FUNCTION_NAME_LENGTH - suffix.length) + suffix;
}
