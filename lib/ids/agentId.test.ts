import { keccak256, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { agentIdOf, looksLikeAgentId } from "./agentId.ts";

describe("agent ids", () => {
  const onChainId = keccak256(toHex("listing"));

  it("are the manifest's name and the listing id's first eight hex digits", () => {
    expect(agentIdOf("tax-summariser", onChainId)).toBe(`tax-summariser-${onChainId.slice(2, 10)}`);
    expect(looksLikeAgentId(agentIdOf("tax-summariser", onChainId))).toBe(true);
    expect(looksLikeAgentId(agentIdOf("a".repeat(64), onChainId))).toBe(true);
  });

  it.each([
    "",
    "tax-summariser",
    "tax-summariser-1a2b3c4",
    "Tax-summariser-1a2b3c4d",
    "tax--summariser-1a2b3c4d",
    "-1a2b3c4d",
    `${"a".repeat(65)}-1a2b3c4d`,
    "tax summariser-1a2b3c4d",
  ])("reject %j", (candidate) => {
    expect(looksLikeAgentId(candidate)).toBe(false);
  });
});
