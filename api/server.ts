// Serves the REST API: `node api/server.ts` with the environment of api/env.ts. Without NATS_URL the
// bus is in-process, so this process also runs the workers.
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { eq } from "drizzle-orm";
import { createPublicClient, http } from "viem";
import type { Bus } from "../lib/bus/bus.ts";
import { createInProcessBus } from "../lib/bus/inProcessBus.ts";
import { createJetStreamBus } from "../lib/bus/jetStreamBus.ts";
import { readDeployment } from "../lib/chain/deploymentFile.ts";
import { loadOrCreateKey } from "../lib/crypto/keyFile.ts";
import { sealingKey } from "../lib/crypto/sealingKey.ts";
import { jobs } from "../lib/db/appSchema.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { connectProjections } from "../lib/db/projections.ts";
import { startOutboxRelay } from "../lib/jobs/outboxRelay.ts";
import { createLogger } from "../lib/log.ts";
import { startRegistrationWorker } from "../workers/registration/registrationWorker.ts";
import { createApp } from "./app.ts";
import { parseApiEnv } from "./env.ts";

const env = parseApiEnv();
const log = createLogger("api");

const deployment = await readDeployment(env.DEPLOYMENT_FILE);
if (!deployment) throw new Error(`No deployment recorded in ${env.DEPLOYMENT_FILE}`);
await migrateAppSchema(env.DATABASE_URL);
const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);
const bus: Bus = env.NATS_URL ? await createJetStreamBus(env.NATS_URL) : createInProcessBus();
const key = await sealingKey(env);
// The in-process bus starts empty: whatever it held when the last process stopped is published anew.
if (!env.NATS_URL) {
  await db.update(jobs).set({ publishedAt: null }).where(eq(jobs.status, "queued"));
}
const relay = startOutboxRelay({ db, bus, log });
const worker = env.NATS_URL
  ? undefined
  : await startRegistrationWorker({ db, bus, sealingKey: key, log: createLogger("worker") });

const app = createApp({
  db,
  bus,
  sealingKey: key,
  chain: {
    client: createPublicClient({ transport: http(env.RPC_URL) }),
    marketplace: deployment.address,
  },
  settings: {
    serviceName: env.SERVICE_NAME,
    network: env.NETWORK,
    jwt: {
      secret: env.JWT_SECRET
        ? new TextEncoder().encode(env.JWT_SECRET)
        : await loadOrCreateKey(join(env.DATA_DIR, "jwt-secret")),
      issuer: env.SERVICE_NAME,
      audience: `${env.SERVICE_NAME}-api`,
    },
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
  },
  log,
  now: Date.now,
});

const server = serve({ fetch: app.fetch, port: env.API_PORT, hostname: env.API_HOST }, (info) => {
  log.info("listening", { url: `http://${env.API_HOST}:${info.port}/v1` });
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(async () => {
      await relay.stop();
      await worker?.stop();
      await bus.close();
      await close();
      process.exit(0);
    });
  });
}
