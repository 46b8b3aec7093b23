// Tracing on, over NATS: an API process and a worker process export to an in-test OTLP receiver.
// One per-task run makes one trace: the API's request, its publish on the bus, the worker's consume,
// the call to the agent and the run's settlement, each the child of the one before (settlement of the
// request). No span of any process carries a secret, the task or its output.
import { parseEther } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { type BehavingAgent, behaving, startBehavingAgent } from "../support/behavingAgent.ts";
import { listPerTaskAgent, perTaskRenter } from "../support/connectedListing.ts";
import { startOtlpReceiver } from "../support/otlpReceiver.ts";
import { until } from "../support/registration.ts";
import { secretScan } from "../support/secretScan.ts";
import { useStack } from "../support/useStack.ts";

const PRICE = parseEther("0.001");

const stack = useStack({ api: 0, workers: 0, nats: true, ponder: true });
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let agent: BehavingAgent;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  agent = await startBehavingAgent(await ensureDevCertificates(stack().dir));
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: "100",
  };
  await Promise.all([stack().addApi(tracing), stack().addWorker(tracing)]);
}, 240_000);
afterAll(async () => {
  await agent?.close();
  await receiver?.close();
});

it("follows a run from its request to its settlement in one trace, with no secret in it", async () => {
  const listing = await listPerTaskAgent(stack(), agent, { name: "traced-agent", price: PRICE });
  const renter = await perTaskRenter(stack(), listing, 10n * PRICE);
  const output = { summary: "an output no span may carry" };
  const task = behaving({ output });
  const run = await renter.api.post("/v1/execute", { agent_id: listing.agentId, task });
  expect(run.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
  const runId = run.body.run_id as string;

  const ofRun = () =>
    receiver.spans().filter((span) => span.attributes["marketplace.run_id"] === runId);
  const request = await until("the request's span exported", () =>
    receiver
      .spans()
      .find(
        (span) =>
          span.name === "POST /v1/execute" &&
          ofRun().some((other) => other.traceId === span.traceId),
      ),
  );
  const named = (name: string) =>
    until(`the run's "${name}" span exported`, () => ofRun().find((span) => span.name === name));
  const publish = await named("runs.execute publish");
  const consume = await named("runs.execute process");
  const call = await named("agent webhook call");
  const settlement = await named("settlement debit");

  expect(request).toMatchObject({ service: "api", parentSpanId: "" });
  expect(request.attributes).toMatchObject({
    "http.route": "/v1/execute",
    "http.response.status_code": 200,
  });
  expect(publish).toMatchObject({
    service: "api",
    traceId: request.traceId,
    parentSpanId: request.spanId,
  });
  expect(consume).toMatchObject({
    service: "workers",
    traceId: request.traceId,
    parentSpanId: publish.spanId,
  });
  expect(consume.attributes["marketplace.run_status"]).toBe("completed");
  expect(call).toMatchObject({ traceId: request.traceId, parentSpanId: consume.spanId });
  expect(call.attributes["http.response.status_code"]).toBe(200);
  expect(settlement).toMatchObject({
    service: "workers",
    traceId: request.traceId,
    parentSpanId: request.spanId,
  });
  expect(settlement.attributes).toMatchObject({
    "marketplace.settlement.outcome": "mined",
    "marketplace.settlement.tx": expect.stringMatching(/^0x[0-9a-f]{64}$/),
  });
  expect(settlement.attributes["marketplace.settlement.gas_used"]).toBeGreaterThan(0);

  // Every span exported by every process, sign-in and registration included.
  const scan = secretScan();
  scan.remember("task", task);
  scan.remember("output", output.summary);
  scan.remember("wallet token", renter.bearer);
  for (const span of receiver.spans()) scan.onOutput(`${JSON.stringify(span.attributes)}\n`);
  expect(scan.leaks(stack())).toEqual([]);
});
