// The outbound read every read_only and repo_scoped tool makes, against a real HTTPS server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { endOf } from "../../../../test/support/toolTestContext.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { fetchText, MAX_FETCH_BYTES } from "./fetchText.ts";
import { outboundAllowance } from "./outboundAllowance.ts";

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/page": { body: "hello" },
    "/json": { type: "application/ld+json", body: "{}" },
    "/big": { body: "b".repeat(MAX_FETCH_BYTES + 100_000) },
    "/image": { type: "image/png", body: Buffer.alloc(10) },
    "/binary": { type: "text/plain", body: Buffer.from([104, 105, 0, 1]) },
    "/gone": { status: 410, body: "gone" },
  });
});
afterAll(() => server.close());

function reader(total = 2 * 1024 * 1024) {
  const reads: number[] = [];
  const allowance = outboundAllowance(total);
  const options = {
    policy: server.policy,
    signal: AbortSignal.timeout(10_000),
    allowance,
    onRead: (bytes: number) => reads.push(bytes),
  };
  return { options, reads, allowance };
}

describe("fetchText", () => {
  it("reads a text answer, counting what it read", async () => {
    const { options, reads } = reader();
    expect(await fetchText(server.url("/page"), "text/*", options)).toEqual({
      text: "hello",
      contentType: "text/plain",
      truncated: false,
      readBytes: 5,
    });
    expect(reads).toEqual([5]);
    expect(server.received.at(-1)?.headers).toMatchObject({ accept: "text/*" });
  });

  it("reads JSON and other text types", async () => {
    const { options } = reader();
    expect((await fetchText(server.url("/json"), "application/json", options)).text).toBe("{}");
  });

  it("reads no more than MAX_FETCH_BYTES of a longer answer, and says so", async () => {
    const { options, reads } = reader();
    const fetched = await fetchText(server.url("/big"), "text/*", options);
    expect(fetched).toMatchObject({ truncated: true, readBytes: MAX_FETCH_BYTES });
    expect(fetched.text).toHaveLength(MAX_FETCH_BYTES);
    expect(reads[0]).toBeLessThan(MAX_FETCH_BYTES + 100_000);
  });

  it("reads no more than the run's allowance has left, then refuses", async () => {
    const { options, reads } = reader(100_000);
    const fetched = await fetchText(server.url("/big"), "text/*", options);
    expect(fetched).toMatchObject({ truncated: true, readBytes: 100_000 });
    expect(await endOf(fetchText(server.url("/page"), "text/*", options))).toEqual({
      kind: "ToolRefusal",
      message: "the run has read all 98 KB its tools may read from outside",
    });
    expect(reads).toHaveLength(1);
  });

  it("refuses an answer that is not text, without reading it", async () => {
    const { options } = reader();
    expect(await endOf(fetchText(server.url("/image"), "*/*", options))).toEqual({
      kind: "ToolRefusal",
      message: "the answer is image/png, not text",
    });
    expect(await endOf(fetchText(server.url("/binary"), "*/*", options))).toEqual({
      kind: "ToolRefusal",
      message: "the answer is binary, not text",
    });
  });

  it("fails an answer that is not 2xx, and a 404 in the caller's words", async () => {
    const { options } = reader();
    expect(await endOf(fetchText(server.url("/gone"), "*/*", options))).toEqual({
      kind: "ToolFailure",
      message: "the answer was HTTP 410",
    });
    expect(
      await endOf(
        fetchText(server.url("/nothing"), "*/*", { ...options, notFound: "no such file" }),
      ),
    ).toEqual({ kind: "ToolFailure", message: "no such file" });
  });

  it("goes through the outbound guard: loopback refused unless the policy allows it", async () => {
    const { options, allowance } = reader(1000);
    const before = server.received.length;
    expect(
      await endOf(fetchText(server.url("/page"), "*/*", { ...options, policy: PUBLIC_ONLY })),
    ).toEqual({
      kind: "OutboundRefusal",
      message: "the endpoint's address is not a public internet address",
    });
    expect(server.received.length).toBe(before);
    // What the refused call took is given back.
    expect(allowance.take(1000)).toBe(1000);
  });
});
