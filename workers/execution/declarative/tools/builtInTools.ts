import type { TOOL_CATALOG, ToolName } from "../../../../lib/manifest/toolCatalog.ts";
import type { BuiltInTool } from "./builtInTool.ts";
import { fetchJson } from "./fetchJson.ts";
import { fetchUrl } from "./fetchUrl.ts";
import { outlineInput } from "./outlineInput.ts";
import { readInput } from "./readInput.ts";
import { readInputLines } from "./readInputLines.ts";
import { readRepoFile } from "./readRepoFile.ts";
import { readRepoFileLines } from "./readRepoFileLines.ts";
import { searchInput } from "./searchInput.ts";
import { searchRepoFile } from "./searchRepoFile.ts";
import { searchUrl } from "./searchUrl.ts";

/** Each tool of the catalogue, in the scope the catalogue gives it (checked by the type). */
export const BUILT_IN_TOOLS: {
  [Name in ToolName]: BuiltInTool<(typeof TOOL_CATALOG)[Name]["scope"]>;
} = {
  read_input: readInput,
  read_input_lines: readInputLines,
  search_input: searchInput,
  outline_input: outlineInput,
  fetch_url: fetchUrl,
  fetch_json: fetchJson,
  search_url: searchUrl,
  read_repo_file: readRepoFile,
  read_repo_file_lines: readRepoFileLines,
  search_repo_file: searchRepoFile,
};
