// A function-calling tool as each model vendor's API takes it.

/** A function's arguments, as a JSON Schema of an object. */
export type FunctionParameters = {
  type: "object";
  properties: Record<string, unknown>;
  required: string[];
  additionalProperties?: boolean;
};

export type FunctionTool = { name: string; description: string; parameters: FunctionParameters };

export const TOOL_FORMATS = {
  openai: (tool: FunctionTool) => ({ type: "function", function: tool }),
  anthropic: ({ name, description, parameters }: FunctionTool) => ({
    name,
    description,
    input_schema: parameters,
  }),
} as const;

export type ToolFormat = keyof typeof TOOL_FORMATS;
export const TOOL_FORMAT_NAMES = Object.keys(TOOL_FORMATS) as [ToolFormat, ...ToolFormat[]];

/** The longest function name both vendors take: letters, digits, `_` and `-`. */
export const MAX_FUNCTION_NAME_LENGTH = 64;
