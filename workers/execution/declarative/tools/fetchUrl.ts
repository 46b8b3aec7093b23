import type { BuiltInTool } from "./builtInTool.ts";
import { READABLE_PAGE } from "./fetchText.ts";
import { OFFSET, objectSchema, URL_PARAMETER } from "./parameters.ts";
import { readNote } from "./readNote.ts";
import { pageFrom } from "./textPages.ts";

export const fetchUrl: BuiltInTool<"read_only"> = {
  scope: "read_only",
  parameters: objectSchema({ url: URL_PARAMETER, offset: OFFSET }, ["url"]),
  run: async (args, { fetchText, maxResultBytes }) => {
    const fetched = await fetchText(args.url as string, READABLE_PAGE);
    const note = `[${fetched.contentType || "no content type"}${readNote(fetched)}]\n`;
    const offset = (args.offset as number | undefined) ?? 0;
    return note + pageFrom(fetched.text, offset, maxResultBytes - Buffer.byteLength(note));
  },
};
