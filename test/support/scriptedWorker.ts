// A worker process whose agents are scripted (test/support/scriptedAgent.ts): the run worker and
// its sweeper as workers/main.ts composes them, over NATS. Each call of an agent is logged
// ("agent called", with its run id), so a test can count calls across processes and crashes.
import { z } from "zod/v4";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { connectProjections } from "../../lib/db/projections.ts";
import { envFields, parseEnvironment } from "../../lib/env.ts";
import { createLogger } from "../../lib/log.ts";
import { stopOnSignal } from "../../lib/stopOnSignal.ts";
import { startExecution } from "../../workers/execution/startExecution.ts";
import { scriptedRuntime } from "./scriptedAgent.ts";

const env = parseEnvironment(
  z.object(
    envFields(
      "DATABASE_URL",
      "NATS_URL",
      "NATS_STREAM_REPLICAS",
      "VIEWS_SCHEMA",
      "RUN_WORKER_CONCURRENCY",
      "RUN_LEASE_MS",
      "RUN_QUEUE_WAIT_MS",
    ),
  ),
);
const log = createLogger("worker");
const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);
const bus = await createJetStreamBus(env.NATS_URL, { replicas: env.NATS_STREAM_REPLICAS });
const runtime = scriptedRuntime((run) =>
  log.info("agent called", { run_id: run.runId, pid: process.pid }),
);
const execution = await startExecution({
  db,
  bus,
  log,
  runtimeFor: () => runtime,
  concurrency: env.RUN_WORKER_CONCURRENCY,
  leaseMs: env.RUN_LEASE_MS,
  queueWaitMs: env.RUN_QUEUE_WAIT_MS,
  sweepIntervalMs: 250,
});
log.info("workers started", { bus: "jetstream", agents: "scripted" });
stopOnSignal(async () => {
  await execution.stop();
  await bus.close();
  await close();
});
