import type { BuiltInTool } from "./builtInTool.ts";
import { OFFSET, objectSchema, REPO_PATH } from "./parameters.ts";
import { readNote } from "./readNote.ts";
import { pageFrom } from "./textPages.ts";

export const readRepoFile: BuiltInTool<"repo_scoped"> = {
  scope: "repo_scoped",
  parameters: objectSchema({ path: REPO_PATH, offset: OFFSET }, ["path"]),
  run: async (args, { fetchRepoFile, maxResultBytes }) => {
    const fetched = await fetchRepoFile(args.path as string);
    const note = fetched.truncated ? `[the file${readNote(fetched)}]\n` : "";
    const offset = (args.offset as number | undefined) ?? 0;
    return note + pageFrom(fetched.text, offset, maxResultBytes - Buffer.byteLength(note));
  },
};
