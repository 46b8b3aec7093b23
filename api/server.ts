// Serves the REST API alone, over NATS JetStream, where the workers run as processes of their own
// (`npm run workers`). Without NATS, `embedded/main.ts` composes the API with in-process workers.
// With API_PROCESSES above 1, this process is the primary of that many serving it (api/apiCluster.ts).
import cluster from "node:cluster";
import { createJetStreamBus } from "../lib/bus/jetStreamBus.ts";
import { sealingKey } from "../lib/crypto/sealingKey.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { envFields } from "../lib/env.ts";
import { busAnswers } from "../lib/health/readinessChecks.ts";
import { createLogger } from "../lib/log.ts";
import { stopOnSignal } from "../lib/stopOnSignal.ts";
import { stopOnSignalOrRequest, superviseApiProcesses } from "./apiCluster.ts";
import { connectApiDatabase } from "./apiDatabase.ts";
import { apiEnvSchema, parseApiEnv } from "./env.ts";
import { serveApi } from "./serveApi.ts";

const env = parseApiEnv(
  apiEnvSchema.extend(envFields("NATS_URL", "NATS_STREAM_REPLICAS", "API_PROCESSES")),
);
const log = createLogger("api");

if (cluster.isPrimary && env.API_PROCESSES > 1) {
  superviseApiProcesses(env.API_PROCESSES, log);
} else {
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
  const stop = async () => {
    await api.close();
    await bus.close();
    await close();
  };
  if (cluster.isWorker) stopOnSignalOrRequest(stop);
  else stopOnSignal(stop);
}
