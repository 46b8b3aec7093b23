import type { ToolScope } from "../../../../lib/manifest/manifestShape.ts";
import type { FetchedText } from "./fetchText.ts";
import type { Repository } from "./repositoryOfInput.ts";
import type { RunInput } from "./runInput.ts";

/** A JSON Schema of `type: object`: a tool's parameters, as the vendor request carries them. */
export type ParametersSchema = {
  type: "object";
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties: false;
};

/**
 * What a tool of each scope is given, and nothing more: an `input_only` tool has no way out, a
 * `read_only` one never sees the input, a `repo_scoped` one reaches only the run's repository.
 */
export type ScopeContext = {
  input_only: { input: RunInput };
  read_only: { fetchText: (url: string, accept: string) => Promise<FetchedText> };
  repo_scoped: {
    repository: () => Repository;
    /** The file's text; `path` as the model gave it, normalised and checked (`repoFileUrl`). */
    fetchRepoFile: (path: string) => Promise<FetchedText>;
  };
};

/** Every scope is also told how much of an answer the model reads back. */
export type ToolContext<Scope extends ToolScope> = ScopeContext[Scope] & {
  /** Room for the tool's answer, in UTF-8 bytes; the toolbox cuts anything longer. */
  maxResultBytes: number;
};

export type BuiltInTool<Scope extends ToolScope> = {
  scope: Scope;
  parameters: ParametersSchema;
  /** `args` already fit `parameters`; refusals and failures are thrown, anything else is answered. */
  run: (args: Record<string, unknown>, context: ToolContext<Scope>) => Promise<string>;
};

/** The call breaks a rule of the tool's (a path outside the repository, a binary page): refused. */
export class ToolRefusal extends Error {}

/** The call was allowed but did not work (nothing at that pointer, a 404): failed. */
export class ToolFailure extends Error {}
