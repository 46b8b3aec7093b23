import type { BuiltInTool } from "./builtInTool.ts";
import { READABLE_PAGE } from "./fetchText.ts";
import { IGNORE_CASE, objectSchema, SEARCH_TEXT, URL_PARAMETER } from "./parameters.ts";
import { readNote } from "./readNote.ts";
import { matchingLines } from "./textPages.ts";

export const searchUrl: BuiltInTool<"read_only"> = {
  scope: "read_only",
  parameters: objectSchema({ url: URL_PARAMETER, text: SEARCH_TEXT, ignore_case: IGNORE_CASE }, [
    "url",
    "text",
  ]),
  run: async (args, { fetchText, maxResultBytes }) => {
    const fetched = await fetchText(args.url as string, READABLE_PAGE);
    const note = fetched.truncated ? `[searched the page${readNote(fetched)}]\n` : "";
    return (
      note +
      matchingLines(fetched.text, args.text as string, {
        ignoreCase: args.ignore_case === true,
        maxBytes: maxResultBytes - Buffer.byteLength(note),
      })
    );
  },
};
