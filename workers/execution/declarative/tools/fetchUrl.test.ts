import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { fetchUrl } from "./fetchUrl.ts";

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/article": { type: "text/html; charset=utf-8", body: "<h1>Rates</h1><p>Up 2%.</p>" },
    "/long": { body: "L".repeat(100_000) },
    "/moved": { status: 301, headers: { location: "https://127.0.0.1/" } },
  });
});
afterAll(() => server.close());

const context = (options: Partial<Parameters<typeof testContext>[1]> = {}) =>
  testContext("read_only", { policy: server.policy, ...options }).context;

describe("fetch_url", () => {
  it("reads a page's text, after its content type", async () => {
    expect(await fetchUrl.run({ url: server.url("/article") }, context())).toBe(
      "[text/html]\n<h1>Rates</h1><p>Up 2%.</p>",
    );
  });

  it("reads a long page a part at a time, within the answer's size", async () => {
    const own = context({ maxResultBytes: 4096 });
    const first = await fetchUrl.run({ url: server.url("/long") }, own);
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(4096);
    const next = Number(/offset (\d+)/.exec(first)?.[1]);
    const second = await fetchUrl.run({ url: server.url("/long"), offset: next }, own);
    expect(second).toContain(`[characters ${next} to`);
  });

  it("says when only the beginning of a page could be read", async () => {
    const own = context({ maxOutboundBytes: 10_000, maxResultBytes: 100_000 });
    const answer = await fetchUrl.run({ url: server.url("/long") }, own);
    expect(answer.startsWith("[text/plain; only its first 10 KB were read]\n")).toBe(true);
  });

  it.each([
    ["loopback", "https://127.0.0.1/"],
    ["the cloud metadata address", "https://169.254.169.254/latest/meta-data/"],
    ["a private address", "https://10.0.0.1/"],
  ])("refuses %s unless the policy allows private addresses", async (_kind, url) => {
    expect(await endOf(fetchUrl.run({ url }, context({ policy: PUBLIC_ONLY })))).toEqual({
      kind: "OutboundRefusal",
      message: "the endpoint's address is not a public internet address",
    });
  });

  it("refuses a name that resolves to a private address", async () => {
    const own = context({
      policy: PUBLIC_ONLY,
      lookup: async () => [{ address: "10.0.0.1", family: 4 }],
    });
    expect((await endOf(fetchUrl.run({ url: "https://intranet.example.com/" }, own))).message).toBe(
      "the endpoint's address is not a public internet address",
    );
  });

  it("refuses plain http:// and does not follow a redirect", async () => {
    const http = `http://127.0.0.1:${server.port}/article`;
    expect((await endOf(fetchUrl.run({ url: http }, context()))).message).toBe(
      "the endpoint is not an HTTPS URL",
    );
    expect((await endOf(fetchUrl.run({ url: server.url("/moved") }, context()))).message).toBe(
      "the endpoint answered with a redirect, which is not followed",
    );
  });
});
