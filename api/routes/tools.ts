import { Hono } from "hono";
import { z } from "zod/v4";
import type { AppEnv } from "../context.ts";
import { parseQuery } from "../validation.ts";

export const toolRoutes = new Hono<AppEnv>();

const EXECUTE_TOOL = {
  name: "execute_agent",
  description:
    "Runs a task on a rented AI agent of the marketplace and returns the agent's output. The " +
    "caller's wallet needs a valid rental credential for the agent's listing.",
  parameters: {
    type: "object",
    properties: {
      agent_id: {
        type: "string",
        description: "The listing id of the rented agent (lst_…), or its registered agent id",
      },
      task: {
        type: "string",
        description: "What the agent should do, in natural language",
      },
      input: {
        type: "object",
        description: "Structured input for the agent, shaped by its input schema",
      },
    },
    required: ["agent_id", "task"],
  },
} as const;

/** The function-calling tool definition of `POST /v1/execute`, as each vendor's API takes it. */
const TOOL_FORMATS = {
  openai: {
    type: "function",
    function: {
      name: EXECUTE_TOOL.name,
      description: EXECUTE_TOOL.description,
      parameters: EXECUTE_TOOL.parameters,
    },
  },
  anthropic: {
    name: EXECUTE_TOOL.name,
    description: EXECUTE_TOOL.description,
    input_schema: EXECUTE_TOOL.parameters,
  },
} as const;

export const toolQuery = z.object({
  format: z.enum(Object.keys(TOOL_FORMATS) as [keyof typeof TOOL_FORMATS]).default("openai"),
});

toolRoutes.get("/execute", (c) => c.json(TOOL_FORMATS[parseQuery(c, toolQuery).format]));
