import { z } from "zod/v4";
import { parseQuery } from "../http/validation.ts";
import { AUTHENTICATED } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerWallet } from "../process/context.ts";
import { agentFunctions } from "../tools/agentFunctions.ts";
import { type FunctionTool, TOOL_FORMAT_NAMES, TOOL_FORMATS } from "../tools/vendorTools.ts";

export const toolRoutes = new DescribedRoutes("/v1/tools");

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

/**
 * One tool per listing the caller may run now, typed by its agent's input schema: a call's
 * arguments are the `POST /v1/execute` body for it.
 */
toolRoutes.get(
  "/",
  {
    tag: "Execution",
    summary: "Each agent the caller may run as a function-calling tool",
    description:
      "One tool per listing the caller holds a valid credential for, in the vendor's form, typed " +
      "by the agent's input schema: a call's arguments (`agent_id`, fixed to the agent's id, " +
      "`task` and `input`) are the `POST /v1/execute` body that runs it.",
    security: "bearer",
    scope: "read",
    query: toolQuery,
    answer: { status: 200, description: "The tools", schema: answers.agentTools },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const toVendor = TOOL_FORMATS[parseQuery(c, toolQuery).format];
    const functions = await agentFunctions(c.get("deps"), callerWallet(c));
    return reply(c, { tools: functions.map((tool) => toVendor(tool)) });
  },
);

/** The function-calling tool definition of `POST /v1/execute`, as each vendor's API takes it. */
toolRoutes.get(
  "/execute",
  {
    tag: "Execution",
    summary: "The execute endpoint as a function-calling tool definition",
    security: "bearer",
    scope: "read",
    query: toolQuery,
    answer: { status: 200, description: "The tool definition", schema: answers.toolDefinition },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  (c, reply) => reply(c, TOOL_FORMATS[parseQuery(c, toolQuery).format](EXECUTE_TOOL)),
);
