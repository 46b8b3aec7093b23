import type { ToolScope } from "./manifestShape.ts";

/**
 * The built-in tools a declarative agent's manifest may name, each with the one scope it runs in:
 * `input_only` tools read nothing but the run's input, `read_only` ones GET public HTTPS pages, and
 * `repo_scoped` ones read files of the one repository the run's input names. docs/tools.md says
 * what each takes, reaches and returns.
 */
export const TOOL_CATALOG = {
  read_input: {
    scope: "input_only",
    description: "Reads the run's input, or the part of it a JSON pointer names, a page at a time.",
  },
  read_input_lines: {
    scope: "input_only",
    description: "Reads numbered lines of the run's input, from one line number to another.",
  },
  search_input: {
    scope: "input_only",
    description: "Lists the numbered lines of the run's input that contain a given text.",
  },
  outline_input: {
    scope: "input_only",
    description: "Outlines the run's input (or a part of it): its keys, types and sizes.",
  },
  fetch_url: {
    scope: "read_only",
    description: "GETs a public HTTPS URL and reads its text, a page at a time.",
  },
  fetch_json: {
    scope: "read_only",
    description:
      "GETs a public HTTPS URL answering JSON and reads it, or the part a JSON pointer names.",
  },
  search_url: {
    scope: "read_only",
    description:
      "GETs a public HTTPS URL and lists the numbered lines of its text that contain a given text.",
  },
  read_repo_file: {
    scope: "repo_scoped",
    description:
      "Reads a file, by its path, of the repository the run's input names, a page at a time.",
  },
  read_repo_file_lines: {
    scope: "repo_scoped",
    description: "Reads numbered lines of a file of the repository the run's input names.",
  },
  search_repo_file: {
    scope: "repo_scoped",
    description:
      "Lists the numbered lines of a file of the repository the run's input names that contain a given text.",
  },
} as const satisfies Record<string, { scope: ToolScope; description: string }>;

export type ToolName = keyof typeof TOOL_CATALOG;

export const TOOL_NAMES = Object.keys(TOOL_CATALOG) as ToolName[];

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_CATALOG, name);
}
