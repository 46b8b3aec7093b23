import { KEBAB_CASE } from "../../lib/manifest/manifestShape.ts";

/** What MCP allows a tool to be called (SEP-986): 1 to 128 letters, digits, `_`, `-` and `.`. */
export const MAX_TOOL_NAME_LENGTH = 128;

/** A manifest's longest `name`, as registration allows it. */
const MAX_MANIFEST_NAME_LENGTH = 64;

export type NamedAgent = { agentId: string; name: unknown };

/**
 * Each agent's tool name, by agent id: its manifest's name, unless another of the agents has that
 * name too (or has it as its agent id); then its agent id, the name and its listing's first hex
 * digits, unique since agent ids are. A name depends only on the set of agents, never on their
 * order, so that a name never moves from one listing to another while both stay in the set.
 */
export function toolNames(agents: readonly NamedAgent[]): Map<string, string> {
  const names = new Map(
    agents.map(({ agentId, name }) => [agentId, isToolName(name) ? name : agentId]),
  );
  for (;;) {
    const uses = new Map<string, number>();
    for (const name of names.values()) uses.set(name, (uses.get(name) ?? 0) + 1);
    const shared = [...names].filter(([agentId, name]) => name !== agentId && uses.get(name) !== 1);
    if (shared.length === 0) return names;
    for (const [agentId] of shared) names.set(agentId, agentId);
  }
}

/** A kebab-case manifest name, as registration checks it: a valid tool name without `_` or `.`. */
function isToolName(name: unknown): name is string {
  return (
    typeof name === "string" && name.length <= MAX_MANIFEST_NAME_LENGTH && KEBAB_CASE.test(name)
  );
}
