// A worker process SIGKILLed in the middle of a run: the run is failed once its lease runs out,
// never run again (its agent may have had side effects), and its reservation is released.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Bus } from "../../lib/bus/bus.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { RUN_SUBJECT } from "../../lib/runLedger/publishRun.ts";
import { RUN_INTERRUPTED } from "../../lib/runLedger/runFailures.ts";
import { RUN_GROUP } from "../../workers/execution/runWorker.ts";
import { captureOutput } from "../support/processOutput.ts";
import { until } from "../support/registration.ts";
import { jetStreamBacklog } from "../support/registrationStream.ts";
import { admit, ended, reached, registeredAgent, runRows } from "../support/runs.ts";
import { scripted } from "../support/scriptedAgent.ts";
import { addScriptedWorker, agentCalls } from "../support/scriptedWorkers.ts";
import { useStack } from "../support/useStack.ts";

const LEASE_MS = 3_000;
const output = captureOutput();
const stack = useStack({
  chain: false,
  nats: true,
  env: { RUN_LEASE_MS: String(LEASE_MS) },
  onOutput: output.onOutput,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let bus: Bus;
beforeAll(async () => {
  bus = await createJetStreamBus(stack().nats.natsUrl);
});
afterAll(async () => {
  await bus?.close();
});

it("fails a run whose worker was SIGKILLed once its lease runs out, and never runs it again", async () => {
  // The only worker when the run is taken: the one killed.
  const victim = await addScriptedWorker(stack());
  const listing = await registeredAgent(stack().db);
  const [id] = await admit({ db: stack().db, bus }, [
    {
      listing,
      task: scripted({ deltas: ["side effects "], sleepMs: 60_000 }),
      timeoutSeconds: 120,
      rentalModel: "per_query",
    },
  ]);
  const runId = id as string;
  await reached(stack().db, runId, "running");
  await until("the agent to be called", () => agentCalls(output.entries()).get(runId) === 1);
  await addScriptedWorker(stack());

  victim.kill("SIGKILL");
  await victim.exited;
  // Its lease still holds for a while: the run is not ended on the spot (the passing of time is
  // what is tested).
  await sleep(LEASE_MS / 3);
  expect((await runRows(stack().db, [runId]))[0]?.status).toBe("running");

  const [run] = await ended(stack().db, [runId], 20_000);
  expect(run).toMatchObject({
    status: "failed",
    failure: RUN_INTERRUPTED,
    charge: "released",
    request: null,
    leaseUntil: null,
  });
  // The dead worker's command comes back to the survivor after the ack wait, and is settled
  // without running the agent again.
  await until(
    "JetStream to let go of the run's command",
    async () => {
      const backlog = await jetStreamBacklog(stack().nats.natsUrl, RUN_SUBJECT, RUN_GROUP);
      return backlog.awaitingAck === 0 && !backlog.stored.includes(runId);
    },
    20_000,
  );
  // Log lines are written asynchronously, but each process's in order: once the survivor's line for
  // a later run has come, a second call of this run's agent would have come before it.
  const [later] = await admit({ db: stack().db, bus }, [{ listing, task: scripted({}) }]);
  await until("the survivor's log of a later run", () =>
    agentCalls(output.entries()).has(later as string),
  );
  expect(agentCalls(output.entries()).get(runId)).toBe(1);
  expect(await runRows(stack().db, [runId])).toEqual([run]);
});
