// Serves the REST API alone, over NATS JetStream, where the workers run as processes of their own
// (`npm run workers`). Without NATS, `embedded/main.ts` composes the API with in-process workers.
import { createJetStreamBus } from "../lib/bus/jetStreamBus.ts";
import { sealingKey } from "../lib/crypto/sealingKey.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { connectProjections } from "../lib/db/projections.ts";
import { ENV_FIELDS } from "../lib/env.ts";
import { createLogger } from "../lib/log.ts";
import { stopOnSignal } from "../lib/stopOnSignal.ts";
import { apiEnvSchema, parseApiEnv } from "./env.ts";
import { serveApi } from "./serveApi.ts";

const env = parseApiEnv(apiEnvSchema.extend({ NATS_URL: ENV_FIELDS.NATS_URL }));
await migrateAppSchema(env.DATABASE_URL);
const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);
const bus = await createJetStreamBus(env.NATS_URL);
const api = await serveApi({
  env,
  db,
  bus,
  sealingKey: await sealingKey(env),
  log: createLogger("api"),
});

stopOnSignal(async () => {
  await api.close();
  await bus.close();
  await close();
});
