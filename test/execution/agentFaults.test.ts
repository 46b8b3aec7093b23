// A connected agent's webhook that fails its run before any output reached the renter, on the real
// stack (API process, worker process over NATS JetStream, settlement on anvil): however it fails, the
// renter is answered 200 with the failed run, charged nothing, its held price released for the next
// run on the credential, which completes and is charged once. (A run that fails after streaming
// output is charged: test/execution/chargingRule.test.ts.)
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { expect, it } from "vitest";
import { runs } from "../../lib/db/appSchema.ts";
import { outputMismatch, runTimedOut } from "../../lib/runLedger/runFailures.ts";
import { type AgentBehaviour, behaving } from "../support/behavingAgent.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";

const PRICE = parseEther("0.001");
const MB = 1024 * 1024;
const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "faulty-agent",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});

async function failureOf(runId: string) {
  const [row] = await stack().db.select().from(runs).where(eq(runs.id, runId));
  return { failure: row?.failure, charge: row?.charge };
}

it.each<[string, AgentBehaviour, number, string | RegExp]>([
  ["hangs past the run's timeout_seconds", { hang: true }, 2, runTimedOut(2)],
  ["answers HTTP 500", { status: 500 }, 30, "the agent answered HTTP 500"],
  [
    "answers an output that does not match output_schema",
    { output: { summary: 42 } },
    30,
    outputMismatch("output.summary", "must be string"),
  ],
  ["answers 50 MB of JSON", { bytes: 50 * MB }, 30, "the endpoint's answer is larger than 1024 KB"],
])(
  "a webhook that %s: 200 failed and uncharged; the credential's next run completes, charged once",
  async (_, behaviour, timeoutSeconds, failure) => {
    // Exactly one run's price: a reservation the failure kept would refuse the next run.
    const renter = await addRenter(PRICE);

    const failed = await renter.api.post("/v1/execute", {
      agent_id: listing().agentId,
      task: behaving(behaviour),
      timeout_seconds: timeoutSeconds,
    });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: "failed", cost_wei: 0 });
    expect(await failureOf(failed.body.run_id)).toEqual({ failure, charge: "released" });

    const next = await renter.api.post("/v1/execute", {
      agent_id: listing().agentId,
      task: behaving(),
    });
    expect(next.body).toMatchObject({
      status: "completed",
      output: { summary: "done" },
      cost_wei: Number(PRICE),
    });
    expect([agent().callsOf(failed.body.run_id), agent().callsOf(next.body.run_id)]).toEqual([
      1, 1,
    ]);
  },
);

it("kept the books: only the completed runs charged, each once", async () => {
  const books = await expectBooksBalance();
  expect([...books.values()].filter((run) => run.status === "completed")).toHaveLength(4);
});
