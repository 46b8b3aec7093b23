// The guard as a `fetch`, against real HTTPS servers on loopback, used directly and by the official
// `openai` client: every refusal of the guard holds, and what passes reads like any `Response`.
import { gzipSync } from "node:zlib";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevCertificates } from "../../../devStack/devCertificates.ts";
import { startHttpsTestServer } from "../../../test/support/httpsTestServer.ts";
import { guardedFetch } from "./guardedFetch.ts";
import { OutboundFailure } from "./outboundFailure.ts";
import { type OutboundPolicy, PUBLIC_ONLY } from "./outboundPolicy.ts";

const certificates = createDevCertificates();
const DEV: OutboundPolicy = { allowPrivateAddresses: true, extraCa: certificates.caCertificate };

async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail("the call succeeded"),
    (error: unknown) => error,
  );
}

async function failureOf(call: Promise<unknown>): Promise<string> {
  const error = await rejectionOf(call);
  expect(error).toBeInstanceOf(OutboundFailure);
  return (error as OutboundFailure).message;
}

const COMPLETION = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "local-model",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "hello from the model server" },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
};

let server: Awaited<ReturnType<typeof startHttpsTestServer>>;
beforeAll(async () => {
  server = await startHttpsTestServer(certificates, (received, response) => {
    if (received.path === "/redirect") {
      response.writeHead(307, { location: server.url("/v1/chat/completions") }).end();
    } else if (received.path === "/big") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("x".repeat(64 * 1024));
    } else if (received.path === "/gzip") {
      response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      response.end(gzipSync("z".repeat(10 * 1024 * 1024)));
    } else if (received.path === "/empty") {
      response.writeHead(204, { "x-empty": "yes" }).end();
    } else if (received.path === "/hang" || received.path === "/hang/chat/completions") {
      // Accepts the request and never answers.
    } else if (received.path === "/v1/chat/completions") {
      response.writeHead(200, { "content-type": "application/json", "x-request-id": "req_1" });
      response.end(JSON.stringify(COMPLETION));
    } else {
      response.writeHead(418, { "content-type": "text/plain", "x-teapot": "short and stout" });
      response.end(`${received.method} ${received.path} ${received.body}`);
    }
  });
});
afterAll(() => server.close());

describe("guardedFetch answers like fetch", () => {
  it("hands back the status, the headers and the body of a GET as a Response", async () => {
    const response = await guardedFetch({ policy: DEV })(server.url("/teapot"));
    expect(response.status).toBe(418);
    expect(response.ok).toBe(false);
    expect(response.headers.get("x-teapot")).toBe("short and stout");
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(response.url).toBe(server.url("/teapot"));
    expect(await response.text()).toBe("GET /teapot ");
  });

  it("sends a POST's method, headers and body, given as a Request or as init", async () => {
    const fetchGuarded = guardedFetch({ policy: DEV });
    const fromInit = await fetchGuarded(new URL(server.url("/echo")), {
      method: "POST",
      headers: new Headers({ "content-type": "application/json", "x-call": "1" }),
      body: '{"a":1}',
    });
    expect(await fromInit.text()).toBe('POST /echo {"a":1}');
    expect(server.received.at(-1)?.headers).toMatchObject({
      "content-type": "application/json",
      "x-call": "1",
      "content-length": "7",
    });
    const fromRequest = await fetchGuarded(
      new Request(server.url("/echo"), { method: "POST", body: "plain" }),
    );
    expect(await fromRequest.text()).toBe("POST /echo plain");
  });

  it("answers a 204 with no body", async () => {
    const response = await guardedFetch({ policy: DEV })(server.url("/empty"));
    expect(response.status).toBe(204);
    expect(response.headers.get("x-empty")).toBe("yes");
    expect(response.body).toBeNull();
  });

  it("sends no other method", async () => {
    const call = guardedFetch({ policy: DEV })(server.url("/echo"), { method: "DELETE" });
    expect(await failureOf(call)).toBe("a DELETE request is not sent to an endpoint");
  });
});

describe("guardedFetch keeps every refusal of the guard", () => {
  it.each([
    ["loopback", "127.0.0.1"],
    ["the cloud metadata address", "169.254.169.254"],
  ])(
    "refuses %s (%s), though the policy would let a POST through with private addresses",
    async (_kind, host) => {
      const before = server.received.length;
      const call = guardedFetch({ policy: PUBLIC_ONLY })(`https://${host}:${server.port}/teapot`);
      expect(await failureOf(call)).toBe("the endpoint's address is not a public internet address");
      expect(server.received.length).toBe(before);
    },
  );

  it("refuses a name that resolves to a private address", async () => {
    const call = guardedFetch({
      policy: PUBLIC_ONLY,
      lookup: async () => [{ address: "10.0.0.1", family: 4 }],
    })("https://models.example.com/v1/chat/completions", { method: "POST", body: "{}" });
    expect(await failureOf(call)).toBe("the endpoint's address is not a public internet address");
  });

  it("refuses plain http://", async () => {
    const call = guardedFetch({ policy: DEV })(`http://127.0.0.1:${server.port}/teapot`);
    expect(await failureOf(call)).toBe("the endpoint is not an HTTPS URL");
  });

  it("fails a redirect without following it, whatever `redirect` says", async () => {
    const before = server.received.length;
    const call = guardedFetch({ policy: DEV })(server.url("/redirect"), { redirect: "follow" });
    expect(await failureOf(call)).toBe(
      "the endpoint answered with a redirect, which is not followed",
    );
    expect(server.received.slice(before).map((seen) => seen.path)).toEqual(["/redirect"]);
  });

  it("errors the body once it passes the cap", async () => {
    const response = await guardedFetch({ policy: DEV, maxResponseBytes: 16 * 1024 })(
      server.url("/big"),
    );
    expect(response.status).toBe(200);
    expect(await failureOf(response.text())).toBe("the endpoint's answer is larger than 16 KB");
  });

  it("asks for answers uncompressed and fails a compressed one, which could grow past the cap", async () => {
    const call = guardedFetch({ policy: DEV })(server.url("/gzip"), {
      headers: { "accept-encoding": "gzip, br" },
    });
    expect(await failureOf(call)).toBe("the endpoint answered compressed, which was not asked for");
    expect(server.received.at(-1)?.headers["accept-encoding"]).toBe("identity");
  });

  it("rejects with the signal's reason when init.signal aborts while waiting", async () => {
    const controller = new AbortController();
    const call = guardedFetch({ policy: DEV })(server.url("/hang"), { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const error = await rejectionOf(call);
    expect((error as Error).name).toBe("AbortError");
  });

  it("rejects at once when init.signal has already aborted, sending nothing", async () => {
    const before = server.received.length;
    const call = guardedFetch({ policy: DEV })(server.url("/teapot"), {
      signal: AbortSignal.abort(),
    });
    expect(((await rejectionOf(call)) as Error).name).toBe("AbortError");
    expect(server.received.length).toBe(before);
  });
});

describe("the openai client, given guardedFetch", () => {
  const client = (baseURL: string, policy: OutboundPolicy) =>
    new OpenAI({ apiKey: "sk-test", baseURL, fetch: guardedFetch({ policy }), maxRetries: 0 });

  it("reaches a self-hosted model server over HTTPS and reads its answer", async () => {
    const completion = await client(server.url("/v1"), DEV).chat.completions.create({
      model: "local-model",
      messages: [{ role: "user", content: "hello" }],
    });
    expect(completion.choices[0]?.message.content).toBe("hello from the model server");
    const seen = server.received.at(-1);
    expect(seen?.method).toBe("POST");
    expect(seen?.headers.authorization).toBe("Bearer sk-test");
    expect(JSON.parse(seen?.body ?? "")).toMatchObject({ model: "local-model" });
  });

  it("cannot reach it when the address is not public, the guard's failure as the cause", async () => {
    const call = client(server.url("/v1"), PUBLIC_ONLY).chat.completions.create({
      model: "local-model",
      messages: [{ role: "user", content: "hello" }],
    });
    const error = (await rejectionOf(call)) as InstanceType<typeof OpenAI.APIConnectionError>;
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(error.cause).toBeInstanceOf(OutboundFailure);
  });

  it("stops waiting when the caller's signal aborts", async () => {
    const started = Date.now();
    const call = client(server.url("/hang"), DEV).chat.completions.create(
      { model: "local-model", messages: [{ role: "user", content: "hello" }] },
      { signal: AbortSignal.timeout(300) },
    );
    expect(await rejectionOf(call)).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
