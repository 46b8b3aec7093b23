// The parameters the built-in tools share, as JSON Schema, each defined once.
import type { ParametersSchema } from "./builtInTool.ts";

export const POINTER = {
  type: "string",
  maxLength: 1000,
  description: 'A JSON pointer (RFC 6901), e.g. "/files/0/name"; "" or absent for the whole.',
} as const;

export const OFFSET = {
  type: "integer",
  minimum: 0,
  description: "The character to start from, for the next page of a long text (default 0).",
} as const;

export const FROM_LINE = { type: "integer", minimum: 1, description: "The first line, from 1." };

export const TO_LINE = {
  type: "integer",
  minimum: 1,
  description: "The last line (default: 200 lines on from the first).",
} as const;

export const SEARCH_TEXT = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  description: "The text to look for, literally (not a pattern).",
} as const;

export const IGNORE_CASE = { type: "boolean", description: "Match regardless of case." } as const;

export const URL_PARAMETER = {
  type: "string",
  minLength: 1,
  maxLength: 2048,
  description: "A public https:// URL.",
} as const;

export const REPO_PATH = {
  type: "string",
  minLength: 1,
  maxLength: 1024,
  description: "The file's path from the repository's root, e.g. \"src/index.ts\".",
} as const;

/** How many lines `to` defaults to past `from`. */
export const DEFAULT_LINES = 200;

export function objectSchema(
  properties: Record<string, unknown>,
  required: string[] = [],
): ParametersSchema {
  return {
    type: "object",
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}
