import { describe, expect, it } from "vitest";
import { toolNames } from "./toolNames.ts";

const agent = (name: unknown, hex: string) => ({ agentId: `${String(name)}-${hex}`, name });

describe("toolNames", () => {
  it("names each agent by its manifest name when no other agent has it", () => {
    const names = toolNames([agent("summarizer", "0a0a0a0a"), agent("auditor", "0b0b0b0b")]);
    expect(names).toEqual(
      new Map([
        ["summarizer-0a0a0a0a", "summarizer"],
        ["auditor-0b0b0b0b", "auditor"],
      ]),
    );
  });

  it("names agents sharing a name by their agent ids, whatever their order", () => {
    const a = agent("summarizer", "0a0a0a0a");
    const b = agent("summarizer", "0b0b0b0b");
    const expected = new Map([
      [a.agentId, a.agentId],
      [b.agentId, b.agentId],
    ]);
    expect(toolNames([a, b])).toEqual(expected);
    expect(toolNames([b, a])).toEqual(expected);
  });

  it("keeps names unique when a name is another agent's id", () => {
    const shared = [agent("brief", "0a0a0a0a"), agent("brief", "0b0b0b0b")];
    // Named exactly as the first one's agent id: it must not take that name.
    const lookalike = { agentId: "brief-0a0a0a0a-0c0c0c0c", name: "brief-0a0a0a0a" };
    const names = toolNames([...shared, lookalike]);
    expect(new Set(names.values()).size).toBe(3);
    expect(names.get(lookalike.agentId)).toBe(lookalike.agentId);
  });

  it("names an agent whose manifest name is no tool name by its agent id", () => {
    const odd = { agentId: "odd-0d0d0d0d", name: "has spaces" };
    const missing = { agentId: "missing-0e0e0e0e", name: undefined };
    const long = { agentId: "long-0f0f0f0f", name: "a".repeat(65) };
    const names = toolNames([odd, missing, long]);
    expect([...names.values()]).toEqual([odd.agentId, missing.agentId, long.agentId]);
  });
});
