import { Hono } from "hono";
import { z } from "zod/v4";
import { type AppEnv, callerWallet } from "../context.ts";
import { agentFunctions } from "../tools/agentFunctions.ts";
import { type FunctionTool, TOOL_FORMAT_NAMES, TOOL_FORMATS } from "../tools/vendorTools.ts";
import { parseQuery } from "../validation.ts";

export const toolRoutes = new Hono<AppEnv>();

const EXECUTE_TOOL: FunctionTool = {
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
};

export const toolQuery = z.object({ format: z.enum(TOOL_FORMAT_NAMES).default("openai") });

/** The function-calling tool definition of `POST /v1/execute`, as each vendor's API takes it. */
toolRoutes.get("/execute", (c) =>
  c.json(TOOL_FORMATS[parseQuery(c, toolQuery).format](EXECUTE_TOOL)),
);

/**
 * One tool per listing the caller may run now, typed by its agent's input schema: a call's
 * arguments are the `POST /v1/execute` body for it.
 */
toolRoutes.get("/", async (c) => {
  const toVendor = TOOL_FORMATS[parseQuery(c, toolQuery).format];
  const functions = await agentFunctions(c.get("deps"), callerWallet(c));
  return c.json({ tools: functions.map((tool) => toVendor(tool)) });
});
