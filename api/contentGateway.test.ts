import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { CID } from "multiformats/cid";
import * as raw from "multiformats/codecs/raw";
import { sha256 } from "multiformats/hashes/sha2";
import { describe, expect, it } from "vitest";
import { manifests } from "../lib/db/appSchema.ts";
import { contentId } from "../lib/ids/contentId.ts";
import { expectError } from "../test/support/http.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { useStack } from "../test/support/useStack.ts";

const stack = useStack({ chain: true, postgres: true });

async function storeManifest(text: string): Promise<string> {
  const bytes = Buffer.from(text);
  const cid = contentId(bytes);
  await stack().db.insert(manifests).values({ cid, content: bytes }).onConflictDoNothing();
  return cid;
}

async function answer(api: ReturnType<typeof createTestApp>, path: string) {
  const response = await api.app.request(path);
  const text = await response.text();
  return {
    status: response.status,
    text,
    body: text.startsWith('{"error') ? JSON.parse(text) : undefined,
  };
}

describe("GET /ipfs/:cid", () => {
  it("serves the exact bytes its content id names, to anyone", async () => {
    const api = createTestApp(stack());
    const text = '{"name":"gateway-agent","description":"spaced  exactly"}';
    const cid = await storeManifest(text);
    const response = await api.app.request(`/ipfs/${cid}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const served = Buffer.from(await response.arrayBuffer());
    expect(served.toString()).toBe(text);
    // The id itself names these bytes: a raw block whose SHA-256 digest is theirs.
    const named = CID.parse(cid);
    expect(named.code).toBe(raw.code);
    expect(named.multihash.code).toBe(sha256.code);
    expect(Buffer.from(named.multihash.digest)).toEqual(
      createHash("sha256").update(served).digest(),
    );
  });

  it("refuses a stored copy whose bytes no longer match its id, and never serves them", async () => {
    const api = createTestApp(stack());
    const cid = await storeManifest('{"name":"altered-at-rest"}');
    await stack()
      .db.update(manifests)
      .set({ content: Buffer.from('{"name":"altered-at-rest","evil":true}') })
      .where(eq(manifests.cid, cid));
    const altered = await answer(api, `/ipfs/${cid}`);
    expectError(altered, 500, "internal_error");
    expect(altered.text).not.toContain("evil");
  });

  it("answers 404 for an id it does not hold or that is not a content id", async () => {
    const api = createTestApp(stack());
    const unknown = contentId(Buffer.from("never stored"));
    expectError(await answer(api, `/ipfs/${unknown}`), 404, "not_found");
    expectError(await answer(api, "/ipfs/QmNotOurs"), 404, "not_found");
  });
});
