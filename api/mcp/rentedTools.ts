import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { formatEther } from "viem";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { nextDebit } from "../../lib/marketplace/credentialStatus.ts";
import { isoFromSeconds } from "../listings/listingResponse.ts";
import type { RentedAgent } from "./rentedAgents.ts";
import { asSchemaResource } from "./schemaResource.ts";
import { isObject } from "./toolResults.ts";

/** An agent's schemas as its public manifest has them. */
export type AgentSchemas = { input: unknown; output: unknown };

/**
 * A rented agent as an MCP tool: `task` and `input` (typed by the agent's `input_schema`), its
 * `output_schema` as the output schema when that is an object's, and the listing's id in `_meta`.
 */
export function rentedTool(agent: RentedAgent, schemas: AgentSchemas | undefined): Tool {
  const listingId = toApiListingId(agent.onChainListingId);
  const output = schemas?.output;
  return {
    name: agent.toolName,
    title: agent.title,
    description: `${agent.description}\n\n${termsOf(agent)}`,
    inputSchema: {
      type: "object",
      properties: {
        task: {
          type: "string",
          minLength: 1,
          description: "What the agent should do, in natural language",
        },
        input: inputSchemaOf(schemas?.input, listingId),
      },
      required: ["task"],
      additionalProperties: false,
    },
    ...(isObject(output) &&
      output.type === "object" && { outputSchema: output as Tool["inputSchema"] }),
    annotations: { readOnlyHint: false, openWorldHint: true },
    _meta: { listing_id: listingId },
  };
}

/** The listing's price and rental model, and what a call costs under it. */
function termsOf({ credential }: RentedAgent): string {
  switch (credential.rentalModel) {
    case "per_query":
      return (
        "Per-Task (per_query): each call that delivers output costs " +
        `${formatEther(nextDebit(credential))} ETH from your prepaid balance; a call that fails ` +
        "before any output costs nothing."
      );
    case "subscription":
      return (
        `Subscription (${formatEther(credential.price)} ETH per 30 days): calls are ` +
        `not charged; yours runs until ${isoFromSeconds(credential.expiresAt)}.`
      );
    case "one_time":
      return `One-Time (${formatEther(credential.price)} ETH, paid): calls are not charged.`;
  }
}

/** The agent's `input_schema` as the `input` argument; any input the API takes without one. */
function inputSchemaOf(schema: unknown, listingId: string): object {
  const description = "The agent's input, as its input schema describes it";
  if (!isObject(schema)) return { type: ["string", "object"], description };
  return asSchemaResource(schema, `urn:marketplace:${listingId}:input`);
}
