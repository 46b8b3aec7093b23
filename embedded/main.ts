// The embedded composition, for a marketplace without NATS: the REST API, an in-process bus and the
// workers in one process. `api/` and `workers/` meet only here and on the bus.

import { connectApiDatabase } from "../api/process/apiDatabase.ts";
import { apiEnvSchema, parseApiEnv } from "../api/process/env.ts";
import { serveApi } from "../api/process/serveApi.ts";
import { createInProcessBus } from "../lib/bus/inProcessBus.ts";
import { requireDeployment } from "../lib/chain/deploymentFile.ts";
import { sealingKey } from "../lib/crypto/sealingKey.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { connectProjections } from "../lib/db/projections.ts";
import { ENV_FIELDS, envFields } from "../lib/env.ts";
import { consumersBound } from "../lib/health/readinessChecks.ts";
import { requeueUnpublishedJobs } from "../lib/jobs/outboxRelay.ts";
import { createLogger } from "../lib/log.ts";
import { gaugeRunQueue } from "../lib/metrics/runQueue.ts";
import { serveMetrics } from "../lib/metrics/serveMetrics.ts";
import { gaugeSettlementBacklog } from "../lib/metrics/settlementBacklog.ts";
import { gaugeWebhookBacklog } from "../lib/metrics/webhookBacklog.ts";
import { stopOnSignal } from "../lib/stopOnSignal.ts";
import { startTracing } from "../lib/tracing/startTracing.ts";
import { EXECUTION_ENV, executionSettings } from "../workers/executionSettings.ts";
import { startWorkers } from "../workers/startWorkers.ts";
import { WEBHOOK_ENV, webhookSettings } from "../workers/webhooks/webhookSettings.ts";

const env = parseApiEnv(
  apiEnvSchema.extend({
    ...envFields("WORKER_CONCURRENCY", "SCHEMA_COMPILE_BUDGET_MS", "OPERATOR_PRIVATE_KEY"),
    ...EXECUTION_ENV,
    ...WEBHOOK_ENV,
    // Its in-process bus cannot be shared between processes: several serve the API over NATS only.
    API_PROCESSES: ENV_FIELDS.API_PROCESSES.refine(
      (processes) => processes === 1,
      "the embedded composition is one process; several need NATS_URL and `npm run api`",
    ),
  }),
);
const tracing = startTracing(env, "embedded");
await migrateAppSchema(env.DATABASE_URL);
// The workers' calls may rightly take long; the API's are bounded, so each has a pool of its own.
const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);
const apiDatabase = connectApiDatabase(env.DATABASE_URL, env.VIEWS_SCHEMA);
const bus = createInProcessBus();
const key = await sealingKey(env);
// The in-process bus starts empty: whatever it held when the last process stopped goes out again.
await requeueUnpublishedJobs(db);
// Runs still `running` from the last process fail once their leases lapse; those `queued` are
// published again by the sweeper.
const workers = await startWorkers({
  db,
  bus,
  sealingKey: key,
  databaseUrl: env.DATABASE_URL,
  registration: {
    concurrency: env.WORKER_CONCURRENCY,
    schemaCompileBudgetMs: env.SCHEMA_COMPILE_BUDGET_MS,
  },
  execution: await executionSettings(env),
  chain: {
    rpcUrl: env.RPC_URL,
    deployment: await requireDeployment(env.DEPLOYMENT_FILE),
    operatorKey: env.OPERATOR_PRIVATE_KEY,
  },
  webhooks: webhookSettings(env),
});
const log = createLogger("api");
const api = await serveApi({
  env,
  db: apiDatabase.db,
  bus,
  sealingKey: key,
  log,
  // The workers' consumers are this process's too: its one port reports on both.
  readinessChecks: { consumers: consumersBound(bus), ...workers.readinessChecks },
});
// One `/metrics` for the API and the workers: the settlement and webhook backlogs and the run queue are
// the workers'.
let metrics: { close: () => Promise<void> } | undefined;
if (env.METRICS_PORT !== undefined) {
  gaugeSettlementBacklog(db);
  gaugeRunQueue(db);
  gaugeWebhookBacklog(db);
  metrics = await serveMetrics({ host: env.METRICS_HOST, port: env.METRICS_PORT }, log);
}

stopOnSignal(async () => {
  await metrics?.close();
  await api.close();
  await workers.stop();
  await bus.close();
  await apiDatabase.close();
  await close();
  await tracing.stop();
});
