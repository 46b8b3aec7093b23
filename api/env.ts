import { z } from "zod/v4";
import { parseEnvironment } from "../lib/parseEnvironment.ts";

const port = z.coerce.number().int().min(0).max(65535);

const apiEnvSchema = z.object({
  DATABASE_URL: z.string().startsWith("postgres"),
  RPC_URL: z.url(),
  DATA_DIR: z.string().default(".data"),
  DEPLOYMENT_FILE: z.string().optional(),
  VIEWS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,44}$/)
    .default("marketplace"),
  API_HOST: z.string().default("127.0.0.1"),
  API_PORT: port.default(8080),
  /** HMAC key for wallet JWTs; unset, one is generated once and kept in DATA_DIR. */
  JWT_SECRET: z.string().min(32).optional(),
  /** `test` issues `intl_test_` keys (the beta's test network), `live` issues `intl_live_` keys. */
  NETWORK: z.enum(["test", "live"]).default("test"),
  SERVICE_NAME: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,30}$/)
    .default("intl"),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(100),
  /** NATS with JetStream; unset, an in-process bus stands in and this process also runs the workers. */
  NATS_URL: z.string().startsWith("nats://").optional(),
  /** 64 hex characters sealing prompts and vendor credentials; unset, a key kept in DATA_DIR. */
  SEALING_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .optional(),
});

export type ApiEnv = z.infer<typeof apiEnvSchema> & { DEPLOYMENT_FILE: string };

/** The API's environment, parsed once at boot. */
export function parseApiEnv(source: NodeJS.ProcessEnv = process.env): ApiEnv {
  const env = parseEnvironment(apiEnvSchema, source);
  return { ...env, DEPLOYMENT_FILE: env.DEPLOYMENT_FILE ?? `${env.DATA_DIR}/deployment.json` };
}
