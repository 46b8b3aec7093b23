import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { fetchJson } from "./fetchJson.ts";

const release = { tag: "v1.2.0", assets: [{ name: "cli.tar.gz", size: 1024 }] };
let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/release": { type: "application/json", body: JSON.stringify(release) },
    "/html": { type: "text/html", body: "<p>not json</p>" },
    "/huge": { type: "application/json", body: `[${"1,".repeat(300_000)}1]` },
  });
});
afterAll(() => server.close());

const context = () => testContext("read_only", { policy: server.policy }).context;

describe("fetch_json", () => {
  it("reads a JSON document, indented, or the part a pointer names", async () => {
    const url = server.url("/release");
    expect(await fetchJson.run({ url }, context())).toBe(JSON.stringify(release, null, 2));
    expect(await fetchJson.run({ url, pointer: "/assets/0/name" }, context())).toBe('"cli.tar.gz"');
    expect(server.received.at(-1)?.headers.accept).toBe("application/json");
  });

  it("fails what is not JSON, a pointer naming nothing, and a document too large to read whole", async () => {
    expect(await endOf(fetchJson.run({ url: server.url("/html") }, context()))).toEqual({
      kind: "ToolFailure",
      message: "the answer is not JSON",
    });
    expect(
      (await endOf(fetchJson.run({ url: server.url("/release"), pointer: "/x" }, context())))
        .message,
    ).toBe("nothing in the document is at that pointer");
    expect((await endOf(fetchJson.run({ url: server.url("/huge") }, context()))).message).toBe(
      "the document is larger than the 512 KB a call may read",
    );
  });
});
