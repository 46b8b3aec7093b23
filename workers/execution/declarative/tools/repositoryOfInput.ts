import { ToolRefusal } from "./builtInTool.ts";

/** The repository a run's `repo_scoped` tools read: the one its input names, never another. */
export type Repository = { owner: string; name: string; ref: string };

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;
const REF = /^[A-Za-z0-9._/-]{1,200}$/;
const GITHUB_URL = /^(?:https:\/\/)?(?:www\.)?github\.com\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/;

/**
 * The repository the run's input names: `input.repository` is `owner/name` or its GitHub URL
 * (`https://github.com/owner/name`), and `input.ref` an optional branch, tag or commit (the default
 * branch when absent). The model never chooses it: its tools' arguments hold a path and nothing more.
 */
export function repositoryOfInput(input: unknown): Repository {
  const fields =
    input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const named = Object.hasOwn(fields, "repository") ? fields.repository : undefined;
  if (typeof named !== "string") {
    throw new ToolRefusal("the run's input names no repository (input.repository: owner/name)");
  }
  const repository = ownerAndName(named);
  if (!repository) {
    throw new ToolRefusal(
      "the run's input.repository is not owner/name or a GitHub repository URL",
    );
  }
  const [owner, name] = repository;
  const ref = Object.hasOwn(fields, "ref") ? fields.ref : undefined;
  if (ref === undefined) return { owner, name, ref: "HEAD" };
  if (typeof ref !== "string" || !REF.test(ref) || ref.split("/").some(isDotSegment)) {
    throw new ToolRefusal("the run's input.ref is not a branch, tag or commit name");
  }
  return { owner, name, ref };
}

function ownerAndName(named: string): [string, string] | undefined {
  const text = named.trim();
  const url = GITHUB_URL.exec(text);
  const parts = url ? url.slice(1) : text.split("/");
  const [owner, name] = parts;
  if (parts.length !== 2 || owner === undefined || name === undefined) return undefined;
  if (!OWNER.test(owner) || !NAME.test(name) || name === "." || name === "..") return undefined;
  return [owner, name];
}

function isDotSegment(segment: string): boolean {
  return segment === "" || segment === "." || segment === "..";
}
