import { type BuiltInTool, ToolFailure } from "./builtInTool.ts";
import { valueAtPointer } from "./jsonPointer.ts";
import { OFFSET, objectSchema, POINTER } from "./parameters.ts";
import { pageFrom } from "./textPages.ts";

export const readInput: BuiltInTool<"input_only"> = {
  scope: "input_only",
  parameters: objectSchema({ pointer: POINTER, offset: OFFSET }),
  run: async (args, { input, maxResultBytes }) => {
    const pointer = (args.pointer as string | undefined) ?? "";
    if (input.value === undefined) return "The run has no input.";
    const found = valueAtPointer(input.value, pointer);
    if (!found) throw new ToolFailure("nothing in the input is at that pointer");
    const text = pointer === "" ? input.text : asText(found.value);
    return pageFrom(text, (args.offset as number | undefined) ?? 0, maxResultBytes);
  },
};

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
