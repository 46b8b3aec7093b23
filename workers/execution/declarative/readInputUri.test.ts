import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failureOf } from "../../../test/support/outboundAnswers.ts";
import { startPageServer } from "../../../test/support/pageServer.ts";
import { PUBLIC_ONLY } from "../outbound/outboundPolicy.ts";
import { MAX_INPUT_URI_BYTES, readInputUri } from "./readInputUri.ts";

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/statements.csv": { type: "text/csv", body: "date,amount\n2024-01-03,4.50\n" },
    "/blob": { type: "application/octet-stream", body: '{"a":1}' },
    "/too-big": { body: "x".repeat(MAX_INPUT_URI_BYTES + 1) },
    "/latin1": { body: Buffer.from([0x63, 0x61, 0x66, 0xe9]) },
    "/private": { status: 403, body: "no" },
    "/moved": { status: 302, headers: { location: "https://169.254.169.254/" } },
  });
});
afterAll(() => server.close());

const options = () => ({ policy: server.policy, signal: AbortSignal.timeout(10_000) });

describe("readInputUri", () => {
  it("reads the text at a run's input_uri, whatever its content type", async () => {
    expect(await readInputUri(server.url("/statements.csv"), options())).toBe(
      "date,amount\n2024-01-03,4.50\n",
    );
    expect(await readInputUri(server.url("/blob"), options())).toBe('{"a":1}');
    expect(server.received.at(-1)?.method).toBe("GET");
  });

  it("fails, in words that never quote the URL, what it must not or cannot read", async () => {
    const secretUrl = server.url("/private?token=s3cr3t");
    const failures = [
      await failureOf(readInputUri(server.url("/too-big"), options())),
      await failureOf(readInputUri(server.url("/latin1"), options())),
      await failureOf(readInputUri(secretUrl, options())),
      await failureOf(readInputUri(server.url("/moved"), options())),
      await failureOf(readInputUri(`http://127.0.0.1:${server.port}/x`, options())),
      await failureOf(readInputUri("ipfs://bafy/statements.csv", options())),
    ];
    expect(failures).toEqual([
      "the run's input_uri could not be read: the endpoint's answer is larger than 256 KB",
      "the run's input_uri could not be read: it is not UTF-8 text",
      "the run's input_uri could not be read: it answered HTTP 403",
      "the run's input_uri could not be read: the endpoint answered with a redirect, which is not followed",
      "the run's input_uri could not be read: the endpoint is not an HTTPS URL",
      "the run's input_uri could not be read: the endpoint is not an HTTPS URL",
    ]);
    for (const failure of failures) expect(failure).not.toContain("127.0.0.1");
  });

  it.each([
    ["loopback", "https://127.0.0.1/input.txt"],
    ["the cloud metadata address", "https://169.254.169.254/latest/meta-data/"],
  ])("refuses %s under the public-only policy", async (_kind, url) => {
    const call = readInputUri(url, { policy: PUBLIC_ONLY, signal: AbortSignal.timeout(10_000) });
    expect(await failureOf(call)).toBe(
      "the run's input_uri could not be read: the endpoint's address is not a public internet address",
    );
  });

  it("refuses a name that resolves to a private address", async () => {
    const call = readInputUri("https://files.example.com/input.txt", {
      policy: PUBLIC_ONLY,
      signal: AbortSignal.timeout(10_000),
      lookup: async () => [{ address: "10.0.0.1", family: 4 }],
    });
    expect(await failureOf(call)).toContain("not a public internet address");
  });
});
