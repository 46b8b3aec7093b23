import type { BuiltInTool } from "./builtInTool.ts";
import { IGNORE_CASE, objectSchema, REPO_PATH, SEARCH_TEXT } from "./parameters.ts";
import { readNote } from "./readNote.ts";
import { matchingLines } from "./textPages.ts";

export const searchRepoFile: BuiltInTool<"repo_scoped"> = {
  scope: "repo_scoped",
  parameters: objectSchema({ path: REPO_PATH, text: SEARCH_TEXT, ignore_case: IGNORE_CASE }, [
    "path",
    "text",
  ]),
  run: async (args, { fetchRepoFile, maxResultBytes }) => {
    const fetched = await fetchRepoFile(args.path as string);
    const note = fetched.truncated ? `[searched the file${readNote(fetched)}]\n` : "";
    return (
      note +
      matchingLines(fetched.text, args.text as string, {
        ignoreCase: args.ignore_case === true,
        maxBytes: maxResultBytes - Buffer.byteLength(note),
      })
    );
  },
};
