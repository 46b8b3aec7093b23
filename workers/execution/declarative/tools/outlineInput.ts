import { type BuiltInTool, ToolFailure } from "./builtInTool.ts";
import { valueAtPointer } from "./jsonPointer.ts";
import { objectSchema, POINTER } from "./parameters.ts";

/** How deep the outline goes below the value it starts from. */
const MAX_DEPTH = 3;
/** Entries shown of one object or array; the rest are counted. */
const MAX_ENTRIES = 25;

export const outlineInput: BuiltInTool<"input_only"> = {
  scope: "input_only",
  parameters: objectSchema({ pointer: POINTER }),
  run: async (args, { input, maxResultBytes }) => {
    if (input.value === undefined) return "The run has no input.";
    const found = valueAtPointer(input.value, (args.pointer as string | undefined) ?? "");
    if (!found) throw new ToolFailure("nothing in the input is at that pointer");
    const lines: string[] = [];
    outline(found.value, "", 0, lines);
    const shown: string[] = [];
    let bytes = 100;
    for (const line of lines) {
      bytes += Buffer.byteLength(line) + 1;
      if (bytes > maxResultBytes) break;
      shown.push(line);
    }
    const rest = lines.length - shown.length;
    return `${shown.join("\n")}${rest > 0 ? `\n[${rest} more lines of outline not shown]` : ""}`;
  },
};

function outline(value: unknown, label: string, depth: number, lines: string[]) {
  const indent = "  ".repeat(depth);
  lines.push(`${indent}${label}${summary(value)}`);
  if (depth >= MAX_DEPTH || value === null || typeof value !== "object") return;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [`[${index}]`, item] as const)
    : Object.entries(value);
  for (const [key, item] of entries.slice(0, MAX_ENTRIES)) {
    outline(item, `${key}: `, depth + 1, lines);
  }
  if (entries.length > MAX_ENTRIES) {
    lines.push(`${indent}  … ${entries.length - MAX_ENTRIES} more`);
  }
}

function summary(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (typeof value === "object") return `object with ${Object.keys(value).length} keys`;
  if (typeof value === "string") return `string of ${value.length} characters`;
  return `${typeof value} ${JSON.stringify(value)}`;
}
