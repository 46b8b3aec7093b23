// The demo connected agent answers only calls signed with its secret, and streams a brief the
// connected-agent runtime turns into a completed run, over HTTPS with the dev CA: an output its
// listing's output_schema accepts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevCertificates } from "../../devStack/devCertificates.ts";
import { newWebhookSecret } from "../../lib/agents/webhookSecret.ts";
import { compileSchema } from "../../lib/manifest/compileInputValidator.ts";
import { connectedAgent } from "../../workers/execution/connectedAgent.ts";
import { guardedPost } from "../../workers/execution/outbound/guardedPost.ts";
import { startDemoAgent } from "./demoAgentServer.ts";
import { demoAgents } from "./demoAgents.ts";

const certificates = createDevCertificates();
const policy = { allowPrivateAddresses: true, extraCa: certificates.caCertificate };
const secret = newWebhookSecret();
let demo: Awaited<ReturnType<typeof startDemoAgent>>;

beforeAll(async () => {
  demo = await startDemoAgent({ port: 0, certificates, webhookSecret: async () => secret });
});
afterAll(() => demo.stop());

function run(deltas: string[]) {
  return {
    runId: "run_demo0000000000000000000",
    listingId: `0x${"cd".repeat(32)}`,
    task: "Brief me",
    input: { sector: "semiconductors" },
    deadline: Date.now() + 20_000,
    signal: AbortSignal.timeout(20_000),
    onDelta: (delta: string) => deltas.push(delta),
  };
}

describe("the demo connected agent", () => {
  it("streams a market brief for the sector to a signed call, as its output_schema says", async () => {
    const deltas: string[] = [];
    const outcome = await connectedAgent(
      { entrypointUrl: demo.url, webhookSecret: secret },
      { policy },
    )(run(deltas));
    expect(outcome.status).toBe("completed");
    const output = (outcome as { output: string }).output;
    expect(output).toMatch(
      /^\d{4}-\d{2}-\d{2}, semiconductors: the sector (rose|fell) \d\.\d% on the day\./,
    );
    const [, marketBrief] = demoAgents(demo.url);
    expect(compileSchema(marketBrief.manifest.output_schema)(output)).toBe(true);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join("")).toBe(output);
  });

  it("refuses a call signed with another secret, and an unsigned one", async () => {
    const outcome = await connectedAgent(
      { entrypointUrl: demo.url, webhookSecret: newWebhookSecret() },
      { policy },
    )(run([]));
    expect(outcome).toEqual({
      status: "failed",
      output: "",
      failure: "the agent answered HTTP 401",
    });

    const unsigned = await guardedPost(
      demo.url,
      {
        headers: { "content-type": "application/json" },
        body: "{}",
        signal: AbortSignal.timeout(5_000),
      },
      { policy },
    );
    expect(unsigned.status).toBe(401);
    unsigned.close();
  });
});
