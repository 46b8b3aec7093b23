import type { Hex } from "viem";

/** The longest manifest `name`; an agent id adds `-` and eight hex digits. */
const MAX_NAME_LENGTH = 64;
const AGENT_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{8}$/;

/** A registered agent's id: its manifest's kebab-case `name` and its listing's first hex digits. */
export function agentIdOf(name: string, onChainListingId: Hex): string {
  return `${name}-${onChainListingId.slice(2, 10).toLowerCase()}`;
}

/** True when `text` has the form of an agent id (whether or not such an agent exists). */
export function looksLikeAgentId(text: string): boolean {
  return text.length <= MAX_NAME_LENGTH + 9 && AGENT_ID.test(text);
}
