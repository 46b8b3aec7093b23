// Serves the REST API alone, over NATS JetStream, where the workers run as processes of their own
// (`npm run workers`). Without NATS, `embedded/main.ts` composes the API with in-process workers.
// With API_PROCESSES above 1, this process is the primary of that many serving it (api/process/apiCluster.ts).
import cluster from "node:cluster";
import { AggregatorRegistry, collectDefaultMetrics } from "prom-client";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { sealingKey } from "../../lib/crypto/sealingKey.ts";
import { migrateAppSchema } from "../../lib/db/migrateAppSchema.ts";
import { envFields } from "../../lib/env.ts";
import { busAnswers } from "../../lib/health/readinessChecks.ts";
import { createLogger } from "../../lib/log.ts";
import { countMetrics } from "../../lib/metrics/metricsOn.ts";
import { serveMetrics } from "../../lib/metrics/serveMetrics.ts";
import { stopOnSignal } from "../../lib/stopOnSignal.ts";
import { startTracing } from "../../lib/tracing/startTracing.ts";
import { stopOnSignalOrRequest, superviseApiProcesses } from "./apiCluster.ts";
import { connectApiDatabase } from "./apiDatabase.ts";
import { apiEnvSchema, parseApiEnv } from "./env.ts";
import { serveApi } from "./serveApi.ts";

const env = parseApiEnv(
  apiEnvSchema.extend(envFields("NATS_URL", "NATS_STREAM_REPLICAS", "API_PROCESSES")),
);
const log = createLogger("api");
const metricsAddress =
  env.METRICS_PORT === undefined ? undefined : { host: env.METRICS_HOST, port: env.METRICS_PORT };

if (cluster.isPrimary && env.API_PROCESSES > 1) {
  superviseApiProcesses(env.API_PROCESSES, log);
  // A cluster's processes would share the port, each scrape reaching one: the primary answers for
  // them all, asking each for its own.
  if (metricsAddress) {
    const aggregator = new AggregatorRegistry();
    await serveMetrics(metricsAddress, log, {
      metrics: () => aggregator.clusterMetrics(),
      contentType: aggregator.contentType,
    });
  }
} else {
  const tracing = startTracing(env, "api");
  await migrateAppSchema(env.DATABASE_URL);
  const { db, close } = connectApiDatabase(env.DATABASE_URL, env.VIEWS_SCHEMA);
  const bus = await createJetStreamBus(env.NATS_URL, { replicas: env.NATS_STREAM_REPLICAS });
  const api = await serveApi({
    env,
    db,
    bus,
    sealingKey: await sealingKey(env),
    log,
    readinessChecks: { nats: busAnswers(bus) },
  });
  if (metricsAddress && cluster.isWorker) {
    countMetrics();
    collectDefaultMetrics();
    // Made here, it answers the primary's requests for this process's metrics.
    new AggregatorRegistry();
  }
  const metrics =
    metricsAddress && !cluster.isWorker ? await serveMetrics(metricsAddress, log) : undefined;
  const stop = async () => {
    await metrics?.close();
    await api.close();
    await bus.close();
    await close();
    await tracing.stop();
  };
  if (cluster.isWorker) stopOnSignalOrRequest(stop);
  else stopOnSignal(stop);
}
