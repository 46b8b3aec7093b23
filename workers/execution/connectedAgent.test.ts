// A connected agent is a real HTTPS server here, verifying each call with the Standard Webhooks
// reference verifier; what it answers (JSON, an event stream, or something broken) decides the run.
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevCertificates } from "../../devStack/devCertificates.ts";
import { newWebhookSecret } from "../../lib/agents/webhookSecret.ts";
import { type ReceivedRequest, startHttpsTestServer } from "../../test/support/httpsTestServer.ts";
import { connectedAgent } from "./connectedAgent.ts";
import { PUBLIC_ONLY } from "./outbound/outboundPolicy.ts";
import type { RunContext } from "./runtime.ts";

const certificates = createDevCertificates();
const outbound = {
  policy: { allowPrivateAddresses: true, extraCa: certificates.caCertificate },
};
const webhookSecret = newWebhookSecret();
const LISTING = `0x${"ab".repeat(32)}`;

let server: Awaited<ReturnType<typeof startHttpsTestServer>>;
/** What the agent made of each call: the verified payload, or why verification failed. */
const verified: { payload?: unknown; refused?: string }[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

const ANSWERS: Record<string, (response: ServerResponse) => Promise<void> | void> = {
  "/json": (response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ output: { summary: "Chips rose 2%" } }));
  },
  "/stream": async (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(": the agent is thinking\n\n");
    response.write(event({ delta: "Chips " }));
    await sleep(20);
    // One event split across writes, and two events in one write.
    const split = event({ delta: "rose " });
    response.write(split.slice(0, 9));
    await sleep(20);
    response.write(split.slice(9) + event({ delta: "2%" }) + event({ delta: " today" }));
    await sleep(20);
    response.end(event({ output: "Chips rose 2% today." }));
  },
  "/deltas-only": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    response.write(event({ delta: "Héllo, " }));
    response.end(event({ delta: "wörld" }));
  },
  "/error": (response) => {
    response.writeHead(500, { "content-type": "application/json" });
    response.end('{"error":"database at 10.1.2.3 is down"}');
  },
  "/not-json": (response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end("{output:");
  },
  "/no-output": (response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"result": 1}');
  },
  "/html": (response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<p>hi</p>");
  },
  "/bad-event": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(event({ delta: "first" }));
    response.end(event({ progress: 0.5 }));
  },
  "/endless": async (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(event({ delta: "start " }));
    const filler = event({ delta: "x".repeat(64 * 1024) });
    for (let i = 0; i < 800 && !response.destroyed; i++) {
      if (!response.write(filler)) await new Promise((resolve) => response.once("drain", resolve));
    }
    response.end();
  },
  "/stall": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(event({ delta: "partial " }));
  },
  "/redirect": (response) => {
    response.writeHead(307, { location: "https://169.254.169.254/latest/meta-data" }).end();
  },
};

beforeAll(async () => {
  server = await startHttpsTestServer(certificates, async (received, response) => {
    verified.push(verify(received));
    await ANSWERS[received.path]?.(response);
  });
});
afterAll(() => server.close());

/** The receiving side, as a creator would write it: the reference verifier on the raw body. */
function verify(received: ReceivedRequest): { payload?: unknown; refused?: string } {
  try {
    const headers = Object.fromEntries(
      ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [
        name,
        String(received.headers[name]),
      ]),
    );
    return { payload: new Webhook(webhookSecret).verify(received.body, headers) };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

function run(overrides: Partial<RunContext> = {}): RunContext & { deltas: string[] } {
  const deltas: string[] = [];
  const deadline = Date.now() + 10_000;
  return {
    runId: `run_${Math.random().toString(36).slice(2)}`,
    listingId: LISTING,
    task: "Brief me on semiconductors",
    input: { sector: "semiconductors" },
    deadline,
    signal: AbortSignal.timeout(10_000),
    onDelta: (delta) => deltas.push(delta),
    deltas,
    ...overrides,
  };
}

const agentAt = (path: string, secret = webhookSecret) =>
  connectedAgent({ entrypointUrl: server.url(path), webhookSecret: secret }, outbound);

describe("a connected agent's webhook", () => {
  it("is a signed POST the reference verifier accepts, carrying the documented payload", async () => {
    const context = run();
    const outcome = await agentAt("/json")(context);
    expect(outcome).toEqual({ status: "completed", output: { summary: "Chips rose 2%" } });

    const received = server.received.at(-1);
    expect(received?.method).toBe("POST");
    expect(received?.headers["content-type"]).toBe("application/json");
    expect(received?.headers["webhook-id"]).toBe(context.runId);
    expect(verified.at(-1)).toEqual({
      payload: {
        run_id: context.runId,
        listing_id: `lst_${"ab".repeat(32)}`,
        task: "Brief me on semiconductors",
        input: { sector: "semiconductors" },
        deadline: new Date(context.deadline).toISOString(),
      },
    });
  });

  it("carries input_uri instead of input when the renter gave one", async () => {
    const context = run({
      input: undefined,
      inputUri: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    });
    await agentAt("/json")(context);
    const { payload } = verified.at(-1) as { payload: Record<string, unknown> };
    expect(payload.input_uri).toBe(context.inputUri);
    expect(payload).not.toHaveProperty("input");
  });

  it("is refused by the verifier under another secret: the signature is bound to the secret", async () => {
    await agentAt("/json", newWebhookSecret())(run());
    expect(verified.at(-1)).toEqual({ refused: "No matching signature found" });
  });
});

describe("a connected agent's answer", () => {
  it("streams deltas to onDelta in order and completes with the final output event", async () => {
    const context = run();
    const outcome = await agentAt("/stream")(context);
    expect(context.deltas).toEqual(["Chips ", "rose ", "2%", " today"]);
    expect(outcome).toEqual({ status: "completed", output: "Chips rose 2% today." });
  });

  it("without a final output event, completes with the deltas concatenated", async () => {
    const context = run();
    const outcome = await agentAt("/deltas-only")(context);
    expect(context.deltas).toEqual(["Héllo, ", "wörld"]);
    expect(outcome).toEqual({ status: "completed", output: "Héllo, wörld" });
  });
});

describe("a connected agent's failures", () => {
  it.each([
    ["/error", "the agent answered HTTP 500"],
    ["/not-json", "the agent's answer is not valid JSON"],
    ["/no-output", 'the agent\'s answer has no "output"'],
    ["/html", "the agent answered neither JSON nor an event stream"],
    ["/redirect", "the endpoint answered with a redirect, which is not followed"],
  ])("%s fails the run: %s", async (path, failure) => {
    expect(await agentAt(path)(run())).toEqual({ status: "failed", output: "", failure });
  });

  it("an event that is neither a delta nor an output fails the run, keeping the deltas before it", async () => {
    expect(await agentAt("/bad-event")(run())).toEqual({
      status: "failed",
      output: "first",
      failure: "the agent sent an event that is neither a delta nor an output",
    });
  });

  it("an answer past the size cap fails the run with the output received so far", async () => {
    const context = run();
    const outcome = await agentAt("/endless")(context);
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    expect(outcome.failure).toBe("the endpoint's answer is larger than 1024 KB");
    expect(outcome.output.startsWith("start x")).toBe(true);
    expect(outcome.output.length).toBeLessThanOrEqual(1024 * 1024);
    expect(outcome.output).toBe(context.deltas.join(""));
  });

  it("an agent that stalls is cut at the deadline, with the output received so far", async () => {
    const started = Date.now();
    const context = run({ deadline: Date.now() + 400, signal: new AbortController().signal });
    expect(await agentAt("/stall")(context)).toEqual({
      status: "failed",
      output: "partial ",
      failure: "the run's deadline passed before the endpoint finished answering",
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("an endpoint at a private address is never called, and the reason does not name it", async () => {
    const before = server.received.length;
    const runtime = connectedAgent(
      { entrypointUrl: server.url("/json"), webhookSecret },
      { policy: PUBLIC_ONLY },
    );
    const outcome = await runtime(run());
    expect(outcome).toEqual({
      status: "failed",
      output: "",
      failure: "the endpoint's address is not a public internet address",
    });
    expect(server.received.length).toBe(before);
  });

  it("never puts the endpoint, its address or what its error page says in a failure", async () => {
    const failures = await Promise.all(
      ["/error", "/redirect", "/not-json"].map(async (path) => agentAt(path)(run())),
    );
    for (const outcome of failures) {
      const text = JSON.stringify(outcome);
      expect(text).not.toContain("127.0.0.1");
      expect(text).not.toContain(String(server.port));
      expect(text).not.toContain("10.1.2.3");
      expect(text).not.toContain("169.254.169.254");
    }
  });
});
