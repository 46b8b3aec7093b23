// Serves the REST API: `node api/server.ts` with the environment of api/env.ts.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { serve } from "@hono/node-server";
import { createPublicClient, http } from "viem";
import { readDeployment } from "../lib/chain/deploymentFile.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { connectProjections } from "../lib/db/projections.ts";
import { createLogger } from "../lib/log.ts";
import { createApp } from "./app.ts";
import { type ApiEnv, parseApiEnv } from "./env.ts";

const env = parseApiEnv();
const log = createLogger("api");

const deployment = await readDeployment(env.DEPLOYMENT_FILE);
if (!deployment) throw new Error(`No deployment recorded in ${env.DEPLOYMENT_FILE}`);
await migrateAppSchema(env.DATABASE_URL);
const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);

const app = createApp({
  db,
  chain: {
    client: createPublicClient({ transport: http(env.RPC_URL) }),
    marketplace: deployment.address,
  },
  settings: {
    serviceName: env.SERVICE_NAME,
    network: env.NETWORK,
    jwt: {
      secret: await jwtSecret(env),
      issuer: env.SERVICE_NAME,
      audience: `${env.SERVICE_NAME}-api`,
    },
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
  },
  log,
  now: Date.now,
});

const server = serve({ fetch: app.fetch, port: env.API_PORT, hostname: env.API_HOST }, (info) => {
  const url = `http://${env.API_HOST}:${info.port}/v1`;
  log.info("listening", { url });
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(() => {
      close().then(() => process.exit(0));
    });
  });
}

/** JWT_SECRET, or a key generated once and kept in DATA_DIR so tokens outlive a restart. */
async function jwtSecret({ JWT_SECRET, DATA_DIR }: ApiEnv): Promise<Uint8Array> {
  if (JWT_SECRET) return new TextEncoder().encode(JWT_SECRET);
  const path = join(DATA_DIR, "jwt-secret");
  try {
    return Buffer.from(await readFile(path, "utf8"), "hex");
  } catch {
    const secret = randomBytes(32);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, secret.toString("hex"), { mode: 0o600, flag: "wx" }).catch(() => {});
    return Buffer.from(await readFile(path, "utf8"), "hex");
  }
}
