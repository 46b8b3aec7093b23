// Attacks on the outbound guard, against real servers on loopback: addresses it must never reach,
// redirects, oversized and endless answers, and a dev CA trusted only when the policy says so.
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevCertificates } from "../../../devStack/devCertificates.ts";
import { startHttpsTestServer } from "../../../test/support/httpsTestServer.ts";
import { failureOf, readAll } from "../../../test/support/outboundAnswers.ts";
import { guardedPost } from "./guardedPost.ts";
import type { Lookup } from "./guardedRequest.ts";
import { type OutboundPolicy, PUBLIC_ONLY } from "./outboundPolicy.ts";

const certificates = createDevCertificates();
const DEV: OutboundPolicy = { allowPrivateAddresses: true, extraCa: certificates.caCertificate };
const request = (signal = AbortSignal.timeout(10_000)) => ({
  headers: { "content-type": "application/json" },
  body: '{"task":"hello"}',
  signal,
});

/** A lookup that answers `addresses` for any name, counting how often it was asked. */
function answering(...addresses: string[]): Lookup & { calls: number } {
  const lookup = async () => {
    lookup.calls++;
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  lookup.calls = 0;
  return lookup;
}

let agent: Awaited<ReturnType<typeof startHttpsTestServer>>;
let bigAnswer = { written: 0, closed: Promise.resolve() };

beforeAll(async () => {
  agent = await startHttpsTestServer(certificates, async (received, response) => {
    if (received.path === "/redirect") {
      response.writeHead(302, { location: agent.url("/ok") }).end();
    } else if (received.path === "/error") {
      response.writeHead(503, { "content-type": "text/plain" }).end("down");
    } else if (received.path === "/declared-huge") {
      response.writeHead(200, { "content-length": String(50 * 1024 * 1024) }).write("x");
    } else if (received.path === "/huge") {
      bigAnswer = streamFiftyMegabytes(response);
    } else if (received.path === "/hang") {
      response.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders();
    } else if (received.path === "/silent") {
      // Accepts the request and never answers.
    } else {
      response.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      response.end(JSON.stringify({ echo: received.body }));
    }
  });
});
afterAll(() => agent.close());

/** Writes up to 50 MB as fast as the reader takes it, counting what the socket accepted. */
function streamFiftyMegabytes(response: import("node:http").ServerResponse) {
  const state = { written: 0, closed: Promise.resolve() };
  const chunk = Buffer.alloc(64 * 1024, "a");
  response.writeHead(200, { "content-type": "application/json" });
  state.closed = new Promise<void>((resolve) => {
    response.on("close", () => resolve());
    const pump = () => {
      while (state.written < 50 * 1024 * 1024 && !response.destroyed) {
        state.written += chunk.length;
        if (!response.write(chunk)) return void response.once("drain", pump);
      }
      response.end();
    };
    pump();
  });
  return state;
}

describe("the outbound guard refuses addresses outside the public internet", () => {
  it.each([
    ["loopback", "127.0.0.1"],
    ["IPv6 loopback", "[::1]"],
    ["IPv4-mapped loopback", "[::ffff:127.0.0.1]"],
    ["loopback as one decimal number", "2130706433"],
    ["loopback in hex", "0x7f.0.0.1"],
    ["the unspecified address", "0.0.0.0"],
  ])("%s (%s), though a server listens there", async (_kind, host) => {
    const before = agent.received.length;
    const url = `https://${host}:${agent.port}/ok`;
    expect(await failureOf(guardedPost(url, request(), { policy: PUBLIC_ONLY }))).toBe(
      "the endpoint's address is not a public internet address",
    );
    expect(agent.received.length).toBe(before);
    // The same URL is reachable: only the policy stood in the way.
    if (host === "127.0.0.1") {
      const allowed = await guardedPost(url, request(), { policy: DEV });
      expect(allowed.status).toBe(200);
      await readAll(allowed);
    }
  });

  it.each([
    ["the cloud metadata address", "169.254.169.254"],
    ["a private address", "10.0.0.1"],
    ["a unique local IPv6 address", "[fd00::1]"],
    ["an IPv4-mapped metadata address", "[::ffff:169.254.169.254]"],
  ])("%s (%s)", async (_kind, host) => {
    expect(
      await failureOf(guardedPost(`https://${host}/`, request(), { policy: PUBLIC_ONLY })),
    ).toBe("the endpoint's address is not a public internet address");
  });

  it("a name that resolves to a private address, refused after resolution", async () => {
    const lookup = answering("10.0.0.1");
    const call = guardedPost("https://agent.example.com/run", request(), {
      policy: PUBLIC_ONLY,
      lookup,
    });
    expect(await failureOf(call)).toBe("the endpoint's address is not a public internet address");
    expect(lookup.calls).toBe(1);
  });

  it("a name with one public and one loopback address: any forbidden address refuses the name", async () => {
    const call = guardedPost("https://agent.example.com/run", request(), {
      policy: PUBLIC_ONLY,
      lookup: answering("93.184.215.14", "127.0.0.1"),
    });
    expect(await failureOf(call)).toBe("the endpoint's address is not a public internet address");
  });

  it("plain http://, though a server listens there", async () => {
    let requests = 0;
    const plain = createHttpServer((_request, response) => {
      requests++;
      response.end("{}");
    });
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const { port } = plain.address() as import("node:net").AddressInfo;
    try {
      const call = guardedPost(`http://127.0.0.1:${port}/`, request(), { policy: DEV });
      expect(await failureOf(call)).toBe("the endpoint is not an HTTPS URL");
      expect(requests).toBe(0);
    } finally {
      plain.close();
    }
  });
});

describe("the outbound guard pins the address it checked", () => {
  it("connects to the one answer DNS gave, asking once, and keeps the name for TLS and Host", async () => {
    // A rebinding resolver: the first answer passes the check, any later one would go elsewhere.
    let calls = 0;
    const rebinding: Lookup = async () => {
      calls++;
      return [{ address: calls === 1 ? "127.0.0.1" : "192.0.2.1", family: 4 }];
    };
    const response = await guardedPost(agent.url("/ok", "localhost"), request(), {
      policy: DEV,
      lookup: rebinding,
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(await readAll(response))).toEqual({ echo: '{"task":"hello"}' });
    expect(calls).toBe(1);
    const seen = agent.received.at(-1);
    expect(seen?.servername).toBe("localhost");
    expect(seen?.headers.host).toBe(`localhost:${agent.port}`);
  });

  it("verifies the certificate for the name, not for the address it connects to", async () => {
    // The certificate is valid for 127.0.0.1, where the connection goes, but not for this name.
    const call = guardedPost(agent.url("/ok", "agent.example.com"), request(), {
      policy: DEV,
      lookup: answering("127.0.0.1"),
    });
    expect(await failureOf(call)).toBe(
      "the endpoint's TLS certificate is not trusted for its name",
    );
  });
});

describe("the outbound guard trusts the dev CA only when told to", () => {
  it("calls a local HTTPS server whose certificate the dev CA issued", async () => {
    const response = await guardedPost(agent.url("/ok"), request(), { policy: DEV });
    expect(response.status).toBe(200);
    expect(response.contentType).toBe("application/json");
    expect(JSON.parse(await readAll(response))).toEqual({ echo: '{"task":"hello"}' });
    expect(agent.received.at(-1)).toMatchObject({ method: "POST", body: '{"task":"hello"}' });
  });

  it("refuses the same server without the dev CA: the default roots do not know it", async () => {
    const call = guardedPost(agent.url("/ok"), request(), {
      policy: { allowPrivateAddresses: true },
    });
    expect(await failureOf(call)).toBe(
      "the endpoint's TLS certificate is not trusted for its name",
    );
  });
});

describe("the outbound guard bounds what comes back", () => {
  it("fails a redirect without following it", async () => {
    const before = agent.received.length;
    const call = guardedPost(agent.url("/redirect"), request(), { policy: DEV });
    expect(await failureOf(call)).toBe(
      "the endpoint answered with a redirect, which is not followed",
    );
    expect(agent.received.slice(before).map((seen) => seen.path)).toEqual(["/redirect"]);
  });

  it("returns another status as it is, for the caller to judge", async () => {
    const response = await guardedPost(agent.url("/error"), request(), { policy: DEV });
    expect(response.status).toBe(503);
    response.close();
  });

  it("refuses an answer that declares more than the cap before reading it", async () => {
    const call = guardedPost(agent.url("/declared-huge"), request(), { policy: DEV });
    expect(await failureOf(call)).toBe("the endpoint's answer is larger than 1024 KB");
  });

  it("cuts a 50 MB answer at the cap and closes the connection, holding no more than the cap", async () => {
    const response = await guardedPost(agent.url("/huge"), request(), { policy: DEV });
    let kept = 0;
    const failure = await failureOf(
      (async () => {
        for await (const chunk of response.body) kept += chunk.length;
      })(),
    );
    expect(failure).toBe("the endpoint's answer is larger than 1024 KB");
    expect(kept).toBeLessThanOrEqual(1024 * 1024);
    await bigAnswer.closed;
    // The server stopped well short of 50 MB: what it wrote was never wanted, nor buffered here.
    expect(bigAnswer.written).toBeLessThan(16 * 1024 * 1024);
  });

  it("gives up on a server that never answers when the deadline passes", async () => {
    const started = Date.now();
    const call = guardedPost(agent.url("/silent"), request(AbortSignal.timeout(300)), {
      policy: DEV,
    });
    expect(await failureOf(call)).toBe(
      "the run's deadline passed before the endpoint finished answering",
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("gives up on an answer that stalls mid-body when the deadline passes", async () => {
    const response = await guardedPost(agent.url("/hang"), request(AbortSignal.timeout(300)), {
      policy: DEV,
    });
    expect(await failureOf(readAll(response))).toBe(
      "the run's deadline passed before the endpoint finished answering",
    );
  });

  it("gives up on a server that accepts the connection but never completes TLS", async () => {
    const sockets: Socket[] = [];
    const mute: Server = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
    const { port } = mute.address() as import("node:net").AddressInfo;
    try {
      const call = guardedPost(`https://127.0.0.1:${port}/`, request(), {
        policy: DEV,
        connectTimeoutMs: 300,
      });
      expect(await failureOf(call)).toBe("the endpoint did not accept a connection within 0.3 s");
    } finally {
      for (const socket of sockets) socket.destroy();
      mute.close();
    }
  });
});
