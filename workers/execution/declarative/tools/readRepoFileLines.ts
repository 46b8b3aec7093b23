import type { BuiltInTool } from "./builtInTool.ts";
import { DEFAULT_LINES, FROM_LINE, objectSchema, REPO_PATH, TO_LINE } from "./parameters.ts";
import { readNote } from "./readNote.ts";
import { numberedLines } from "./textPages.ts";

export const readRepoFileLines: BuiltInTool<"repo_scoped"> = {
  scope: "repo_scoped",
  parameters: objectSchema({ path: REPO_PATH, from: FROM_LINE, to: TO_LINE }, ["path", "from"]),
  run: async (args, { fetchRepoFile, maxResultBytes }) => {
    const fetched = await fetchRepoFile(args.path as string);
    const from = args.from as number;
    const to = (args.to as number | undefined) ?? from + DEFAULT_LINES - 1;
    const note = fetched.truncated ? `[the file${readNote(fetched)}]\n` : "";
    return note + numberedLines(fetched.text, from, to, maxResultBytes - Buffer.byteLength(note));
  },
};
