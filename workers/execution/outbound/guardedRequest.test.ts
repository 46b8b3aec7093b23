// GETs through the outbound guard, against a real HTTPS server on loopback: the same refusals as
// for a POST, and the answer's headers handed back. (guardedPost.test.ts attacks the guard itself.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevCertificates } from "../../../devStack/devCertificates.ts";
import { startHttpsTestServer } from "../../../test/support/httpsTestServer.ts";
import { failureOf, readAll } from "../../../test/support/outboundAnswers.ts";
import { guardedRequest } from "./guardedRequest.ts";
import { type OutboundPolicy, PUBLIC_ONLY } from "./outboundPolicy.ts";

const certificates = createDevCertificates();
const DEV: OutboundPolicy = { allowPrivateAddresses: true, extraCa: certificates.caCertificate };
const get = (signal = AbortSignal.timeout(10_000)) => ({
  method: "GET" as const,
  headers: { accept: "text/plain" },
  signal,
});

let server: Awaited<ReturnType<typeof startHttpsTestServer>>;
beforeAll(async () => {
  server = await startHttpsTestServer(certificates, (received, response) => {
    if (received.path === "/redirect") {
      response.writeHead(301, { location: server.url("/page") }).end();
    } else if (received.path === "/big") {
      response.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(4096));
    } else {
      response.setHeader("set-cookie", ["a=1", "b=2"]);
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-page": "one" });
      response.end(`you asked for ${received.path} with ${received.method}`);
    }
  });
});
afterAll(() => server.close());

describe("a guarded GET", () => {
  it("sends no body and hands back the status, the headers and the body", async () => {
    const response = await guardedRequest(server.url("/page?q=1"), get(), { policy: DEV });
    expect(response.status).toBe(200);
    expect(response.contentType).toBe("text/plain");
    expect(response.headers).toMatchObject({
      "content-type": "text/plain; charset=utf-8",
      "x-page": "one",
      "set-cookie": "a=1, b=2",
    });
    expect(await readAll(response)).toBe("you asked for /page?q=1 with GET");
    const seen = server.received.at(-1);
    expect(seen).toMatchObject({ method: "GET", body: "" });
    expect(seen?.headers["content-length"]).toBeUndefined();
    expect(seen?.headers.accept).toBe("text/plain");
  });

  it.each([
    ["loopback", "127.0.0.1"],
    ["the cloud metadata address", "169.254.169.254"],
    ["a private address", "10.0.0.1"],
  ])("refuses %s (%s) unless the policy allows private addresses", async (_kind, host) => {
    const before = server.received.length;
    const call = guardedRequest(`https://${host}:${server.port}/page`, get(), {
      policy: PUBLIC_ONLY,
    });
    expect(await failureOf(call)).toBe("the endpoint's address is not a public internet address");
    expect(server.received.length).toBe(before);
  });

  it("refuses a name that resolves to a private address", async () => {
    const call = guardedRequest("https://files.example.com/page", get(), {
      policy: PUBLIC_ONLY,
      lookup: async () => [{ address: "10.0.0.1", family: 4 }],
    });
    expect(await failureOf(call)).toBe("the endpoint's address is not a public internet address");
  });

  it("fails a redirect without following it", async () => {
    const before = server.received.length;
    const call = guardedRequest(server.url("/redirect"), get(), { policy: DEV });
    expect(await failureOf(call)).toBe(
      "the endpoint answered with a redirect, which is not followed",
    );
    expect(server.received.slice(before).map((seen) => seen.path)).toEqual(["/redirect"]);
  });

  it("cuts an answer at the cap", async () => {
    const response = await guardedRequest(server.url("/big"), get(), {
      policy: DEV,
      maxResponseBytes: 1024,
    });
    expect(await failureOf(readAll(response))).toBe("the endpoint's answer is larger than 1 KB");
  });
});
