import { describe, expect, it } from "vitest";
import { contentId, isContentId } from "./contentId.ts";

describe("content ids", () => {
  it("match IPFS's CIDv1 for a raw block", () => {
    // The well-known CID of the empty raw block.
    expect(contentId(new Uint8Array())).toBe(
      "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku",
    );
  });

  it("change with every byte and stay within the 200-byte on-chain limit as a URI", () => {
    const a = `ipfs://${contentId(new TextEncoder().encode('{"name":"a"}'))}`;
    const b = `ipfs://${contentId(new TextEncoder().encode('{"name":"b"}'))}`;
    expect(a).not.toBe(b);
    expect(a).toMatch(/^ipfs:\/\/bafkrei[a-z2-7]{52}$/);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(200);
  });

  it("are recognised, and nothing else is", () => {
    expect(isContentId(contentId(new Uint8Array([1, 2, 3])))).toBe(true);
    for (const text of [
      "",
      "bafkrei",
      `bafkrei${"a".repeat(51)}`,
      `bafkrei${"a".repeat(53)}`,
      `BAFKREI${"A".repeat(52)}`,
      "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    ]) {
      expect(isContentId(text)).toBe(false);
    }
  });
});
