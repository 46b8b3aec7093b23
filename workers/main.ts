// Runs the workers as a process of their own, consuming from NATS JetStream.
import { z } from "zod/v4";
import { createJetStreamBus } from "../lib/bus/jetStreamBus.ts";
import { requireDeployment } from "../lib/chain/deploymentFile.ts";
import { sealingKey } from "../lib/crypto/sealingKey.ts";
import { connectProjections } from "../lib/db/projections.ts";
import { deploymentFileOf, envFields, parseEnvironment } from "../lib/env.ts";
import { createReadiness } from "../lib/health/readiness.ts";
import {
  busAnswers,
  chainHeadFresh,
  consumersBound,
  migrationsApplied,
  postgresAnswers,
} from "../lib/health/readinessChecks.ts";
import { serveHealth } from "../lib/health/serveHealth.ts";
import { createLogger } from "../lib/log.ts";
import { gaugeRunQueue } from "../lib/metrics/runQueue.ts";
import { serveMetrics } from "../lib/metrics/serveMetrics.ts";
import { gaugeSettlementBacklog } from "../lib/metrics/settlementBacklog.ts";
import { gaugeWebhookBacklog } from "../lib/metrics/webhookBacklog.ts";
import { stopOnSignal } from "../lib/stopOnSignal.ts";
import { startTracing } from "../lib/tracing/startTracing.ts";
import { TRACING_ENV } from "../lib/tracing/tracingEnv.ts";
import { EXECUTION_ENV, executionSettings } from "./executionSettings.ts";
import { startWorkers } from "./startWorkers.ts";
import { WEBHOOK_ENV, webhookSettings } from "./webhooks/webhookSettings.ts";

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
      "LOG_LEVEL",
      "HEALTH_PORT",
      "HEALTH_HOST",
      "METRICS_PORT",
      "METRICS_HOST",
    ),
    ...EXECUTION_ENV,
    ...WEBHOOK_ENV,
    ...TRACING_ENV,
  }),
);

const tracing = startTracing(env, "workers");
const log = createLogger("worker");
const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);
const bus = await createJetStreamBus(env.NATS_URL, { replicas: env.NATS_STREAM_REPLICAS });
const deployment = await requireDeployment(deploymentFileOf(env));
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
    deployment,
    operatorKey: env.OPERATOR_PRIVATE_KEY,
  },
  settlement: {
    reconcilePatienceMs: env.SETTLEMENT_RECONCILE_PATIENCE_MS,
    confirmations: env.SETTLEMENT_CONFIRMATIONS,
  },
  webhooks: webhookSettings(env),
});
// Unset, no port is taken: several worker processes may run on one machine, each given its own.
const health =
  env.HEALTH_PORT === undefined
    ? undefined
    : await serveHealth(
        { host: env.HEALTH_HOST, port: env.HEALTH_PORT },
        createReadiness(
          {
            postgres: postgresAnswers(db),
            migrations: migrationsApplied(db),
            chain: chainHeadFresh(env.RPC_URL, deployment.chainId),
            nats: busAnswers(bus),
            consumers: consumersBound(bus),
            ...workers.readinessChecks,
          },
          log.child("readiness"),
        ),
        log,
      );
// Unset, no port is taken, as for health.
let metrics: { close: () => Promise<void> } | undefined;
if (env.METRICS_PORT !== undefined) {
  gaugeSettlementBacklog(db);
  gaugeRunQueue(db);
  gaugeWebhookBacklog(db);
  metrics = await serveMetrics({ host: env.METRICS_HOST, port: env.METRICS_PORT }, log);
}
log.info("workers started", { bus: "jetstream" });

stopOnSignal(async () => {
  await metrics?.close();
  await health?.close();
  await workers.stop();
  await bus.close();
  await close();
  await tracing.stop();
});
