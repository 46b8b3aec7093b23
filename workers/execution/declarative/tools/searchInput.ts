import type { BuiltInTool } from "./builtInTool.ts";
import { IGNORE_CASE, objectSchema, SEARCH_TEXT } from "./parameters.ts";
import { matchingLines } from "./textPages.ts";

export const searchInput: BuiltInTool<"input_only"> = {
  scope: "input_only",
  parameters: objectSchema({ text: SEARCH_TEXT, ignore_case: IGNORE_CASE }, ["text"]),
  run: async (args, { input, maxResultBytes }) =>
    matchingLines(input.text, args.text as string, {
      ignoreCase: args.ignore_case === true,
      maxBytes: maxResultBytes,
    }),
};
