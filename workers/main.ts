// Runs the workers as a process of their own, consuming from NATS JetStream.
import { z } from "zod/v4";
import { createJetStreamBus } from "../lib/bus/jetStreamBus.ts";
import { requireDeployment } from "../lib/chain/deploymentFile.ts";
import { sealingKey } from "../lib/crypto/sealingKey.ts";
import { connectProjections } from "../lib/db/projections.ts";
import { deploymentFileOf, envFields, parseEnvironment } from "../lib/env.ts";
import { createLogger } from "../lib/log.ts";
import { stopOnSignal } from "../lib/stopOnSignal.ts";
import { EXECUTION_ENV, executionSettings } from "./executionSettings.ts";
import { startWorkers } from "./startWorkers.ts";

const env = parseEnvironment(
  z.object({
    ...envFields(
      "DATABASE_URL",
      "NATS_URL",
      "NATS_STREAM_REPLICAS",
      "RPC_URL",
      "OPERATOR_PRIVATE_KEY",
      "VIEWS_SCHEMA",
      "SEALING_KEY",
      "WORKER_CONCURRENCY",
      "REGISTRATION_ACK_WAIT_MS",
      "SCHEMA_COMPILE_BUDGET_MS",
      "SETTLEMENT_RECONCILE_PATIENCE_MS",
      "SETTLEMENT_CONFIRMATIONS",
    ),
    ...EXECUTION_ENV,
  }),
);

const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);
const bus = await createJetStreamBus(env.NATS_URL, { replicas: env.NATS_STREAM_REPLICAS });
const workers = await startWorkers({
  db,
  bus,
  sealingKey: await sealingKey(env),
  databaseUrl: env.DATABASE_URL,
  registration: {
    concurrency: env.WORKER_CONCURRENCY,
    ackWaitMs: env.REGISTRATION_ACK_WAIT_MS,
    schemaCompileBudgetMs: env.SCHEMA_COMPILE_BUDGET_MS,
  },
  execution: await executionSettings(env),
  chain: {
    rpcUrl: env.RPC_URL,
    deployment: await requireDeployment(deploymentFileOf(env)),
    operatorKey: env.OPERATOR_PRIVATE_KEY,
  },
  settlement: {
    reconcilePatienceMs: env.SETTLEMENT_RECONCILE_PATIENCE_MS,
    confirmations: env.SETTLEMENT_CONFIRMATIONS,
  },
});
createLogger("worker").info("workers started", { bus: "jetstream" });

stopOnSignal(async () => {
  await workers.stop();
  await bus.close();
  await close();
});
