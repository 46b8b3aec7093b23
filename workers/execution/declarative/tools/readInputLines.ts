import type { BuiltInTool } from "./builtInTool.ts";
import { DEFAULT_LINES, FROM_LINE, objectSchema, TO_LINE } from "./parameters.ts";
import { numberedLines } from "./textPages.ts";

export const readInputLines: BuiltInTool<"input_only"> = {
  scope: "input_only",
  parameters: objectSchema({ from: FROM_LINE, to: TO_LINE }, ["from"]),
  run: async (args, { input, maxResultBytes }) => {
    const from = args.from as number;
    const to = (args.to as number | undefined) ?? from + DEFAULT_LINES - 1;
    if (input.value === undefined) return "The run has no input.";
    return numberedLines(input.text, from, to, maxResultBytes);
  },
};
