import { describe, expect, it } from "vitest";
import { contentId, ipfsUri } from "./contentId.ts";

describe("content ids", () => {
  it("match IPFS's CIDv1 for a raw block", () => {
    // The well-known CID of the empty raw block.
    expect(contentId(new Uint8Array())).toBe(
      "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku",
    );
  });

  it("change with every byte and stay within the 200-byte on-chain limit as a URI", () => {
    const a = ipfsUri(new TextEncoder().encode('{"name":"a"}'));
    const b = ipfsUri(new TextEncoder().encode('{"name":"b"}'));
    expect(a).not.toBe(b);
    expect(a).toMatch(/^ipfs:\/\/bafkrei[a-z2-7]{52}$/);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(200);
  });
});
