import { keccak256, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { parseApiListingId, toApiListingId } from "./listingId.ts";

describe("API listing ids", () => {
  it("map to the on-chain id and back", () => {
    const onChainId = keccak256(toHex("listing"));
    const apiId = toApiListingId(onChainId);
    expect(apiId).toMatch(/^lst_[0-9a-f]{64}$/);
    expect(parseApiListingId(apiId)).toBe(onChainId);
  });

  it.each([
    "",
    "lst_",
    "lst_xyz",
    `lst_${"a".repeat(63)}`,
    `lst_${"a".repeat(65)}`,
    `lst_${"A".repeat(64)}`,
    `0x${"a".repeat(64)}`,
    ` lst_${"a".repeat(64)}`,
  ])("reject %j", (candidate) => {
    expect(parseApiListingId(candidate)).toBeUndefined();
  });
});
