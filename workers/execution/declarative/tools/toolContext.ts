import type { ToolScope } from "../../../../lib/manifest/manifestShape.ts";
import type { Lookup } from "../../outbound/guardedRequest.ts";
import type { OutboundPolicy } from "../../outbound/outboundPolicy.ts";
import type { ToolContext } from "./builtInTool.ts";
import { refuseComposedQuery } from "./composedQuery.ts";
import { type FetchTextOptions, fetchText } from "./fetchText.ts";
import type { OutboundAllowance } from "./outboundAllowance.ts";
import { DEFAULT_REPOSITORY_BASE_URL, repoFileUrl } from "./repoFileUrl.ts";
import { repositoryOfInput } from "./repositoryOfInput.ts";
import type { RunInput } from "./runInput.ts";

export type ToolContextOptions = {
  /** The run's input, made once on first use. */
  input: () => RunInput;
  /** The manifest's `tool_domains` (`refuseComposedQuery`). */
  toolDomains: readonly string[];
  /** Whether the model was given `text` to read: the task, the input, a tool's answer. */
  wasRead: (text: string) => boolean;
  policy: OutboundPolicy;
  lookup?: Lookup;
  signal: AbortSignal;
  allowance: OutboundAllowance;
  repositoryBaseUrl?: string;
  maxResultBytes: number;
};

/**
 * What a tool of `scope` is given for one call, and nothing more (see `ScopeContext`); `onRead`
 * counts what the call reads from outside.
 */
export function toolContext<Scope extends ToolScope>(
  scope: Scope,
  options: ToolContextOptions,
  onRead: (bytes: number) => void,
): ToolContext<Scope> {
  // The one cast: `contextOf` answers the scope it was asked for, which TypeScript cannot follow.
  return contextOf(scope, options, onRead) as unknown as ToolContext<Scope>;
}

function contextOf(
  scope: ToolScope,
  {
    input,
    toolDomains,
    wasRead,
    policy,
    lookup,
    signal,
    allowance,
    repositoryBaseUrl,
    maxResultBytes,
  }: ToolContextOptions,
  onRead: (bytes: number) => void,
): ToolContext<ToolScope> {
  if (scope === "input_only") return { input: input(), maxResultBytes };
  const outbound: FetchTextOptions = {
    policy,
    ...(lookup && { lookup }),
    signal,
    allowance,
    onRead,
  };
  if (scope === "read_only") {
    return {
      fetchText: (url, accept) => {
        refuseComposedQuery(url, toolDomains, wasRead);
        return fetchText(url, accept, outbound);
      },
      maxResultBytes,
    };
  }
  const repository = () => repositoryOfInput(input().value);
  const baseUrl = repositoryBaseUrl ?? DEFAULT_REPOSITORY_BASE_URL;
  return {
    repository,
    fetchRepoFile: (path) =>
      fetchText(repoFileUrl(baseUrl, repository(), path), "text/plain, */*;q=0.1", {
        ...outbound,
        notFound: "the repository has no file at that path",
      }),
    maxResultBytes,
  };
}
