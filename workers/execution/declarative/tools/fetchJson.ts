import { type BuiltInTool, ToolFailure } from "./builtInTool.ts";
import { valueAtPointer } from "./jsonPointer.ts";
import { OFFSET, objectSchema, POINTER, URL_PARAMETER } from "./parameters.ts";
import { pageFrom } from "./textPages.ts";

export const fetchJson: BuiltInTool<"read_only"> = {
  scope: "read_only",
  parameters: objectSchema({ url: URL_PARAMETER, pointer: POINTER, offset: OFFSET }, ["url"]),
  run: async (args, { fetchText, maxResultBytes }) => {
    const fetched = await fetchText(args.url as string, "application/json");
    if (fetched.truncated) {
      throw new ToolFailure(
        `the document is larger than the ${Math.round(fetched.readBytes / 1024)} KB a call may read`,
      );
    }
    let document: unknown;
    try {
      document = JSON.parse(fetched.text);
    } catch {
      throw new ToolFailure("the answer is not JSON");
    }
    const found = valueAtPointer(document, (args.pointer as string | undefined) ?? "");
    if (!found) throw new ToolFailure("nothing in the document is at that pointer");
    const text = JSON.stringify(found.value, null, 2) ?? "null";
    return pageFrom(text, (args.offset as number | undefined) ?? 0, maxResultBytes);
  },
};
