import { ToolRefusal } from "./builtInTool.ts";
import type { Repository } from "./repositoryOfInput.ts";

/** The host `read_repo_file` and its kin read files from, unless TOOL_REPOSITORY_BASE_URL says. */
export const DEFAULT_REPOSITORY_BASE_URL = "https://raw.githubusercontent.com";

const MAX_PATH_LENGTH = 1024;

/**
 * Where the file at `path` of `repository` is read: `{base}/{owner}/{name}/{ref}/{path}`, every
 * segment percent-encoded. The path is normalised (`./` and repeated slashes dropped); an absolute
 * path, a `..` segment, a backslash or a control character is refused, so no path leaves the
 * repository, whatever the host would make of it.
 */
export function repoFileUrl(baseUrl: string, repository: Repository, path: string): string {
  const segments = normalisedPath(path);
  const prefix = [repository.owner, repository.name, ...repository.ref.split("/")];
  const url = new URL(
    `${baseUrl.replace(/\/+$/, "")}/${[...prefix, ...segments].map(encodeURIComponent).join("/")}`,
  );
  const base = new URL(baseUrl);
  // What the URL parser made of it still lies under the repository: a last line of defence.
  const expected = `${base.pathname.replace(/\/+$/, "")}/${prefix.map(encodeURIComponent).join("/")}/`;
  if (url.origin !== base.origin || !url.pathname.startsWith(expected)) {
    throw new ToolRefusal("the path leaves the repository");
  }
  return url.href;
}

function normalisedPath(path: string): string[] {
  if (path.length > MAX_PATH_LENGTH) {
    throw new ToolRefusal(`the path is longer than ${MAX_PATH_LENGTH} characters`);
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  if (/[\\\u0000-\u001f\u007f]/.test(path)) {
    throw new ToolRefusal("the path holds a backslash or a control character");
  }
  if (path.startsWith("/"))
    throw new ToolRefusal("the path is absolute; give it from the repository's root");
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new ToolRefusal("the path leaves the repository (..)");
  if (segments.length === 0) throw new ToolRefusal("the path names no file");
  return segments;
}
