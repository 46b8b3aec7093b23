import { z } from "zod/v4";
import { deploymentFileOf, envFields, parseEnvironment } from "../../lib/env.ts";
import { TRACING_ENV } from "../../lib/tracing/tracingEnv.ts";

/** What an API process reads, whichever bus it is composed with. */
export const apiEnvSchema = z.object({
  ...envFields(
    "DATABASE_URL",
    "RPC_URL",
    "RPC_WS_URL",
    "DATA_DIR",
    "DEPLOYMENT_FILE",
    "VIEWS_SCHEMA",
    "API_HOST",
    "API_PORT",
    "JWT_SECRET",
    "JWT_LIFETIME_SECONDS",
    "NETWORK",
    "SERVICE_NAME",
    "PUBLIC_URL",
    "RATE_LIMIT_PER_MINUTE",
    "AUTH_RATE_LIMIT_PER_MINUTE",
    "EXECUTION_RATE_LIMIT_PER_MINUTE",
    "MAX_EXECUTION_RATE_PER_MINUTE",
    "REGISTRATIONS_QUEUED_PER_WALLET",
    "UNLISTED_AGENTS_PER_WALLET",
    "TRUST_PROXY",
    "SEALING_KEY",
    "RECEIPTS_PRIVATE_KEY",
    "DASHBOARD_DIR",
    "DASHBOARD_RPC_URL",
    "LOG_LEVEL",
    "METRICS_PORT",
    "METRICS_HOST",
  ),
  ...TRACING_ENV,
});

export type ApiEnv = z.output<typeof apiEnvSchema> & { DEPLOYMENT_FILE: string };

/**
 * The API's environment, parsed once at boot. On the live network its keys must be given: a key
 * generated into DATA_DIR would vanish with the machine, and with it every session and sealed secret.
 * So must its public address: sign-in messages name it, and a request's Host is the caller's to choose.
 */
export function parseApiEnv<T extends typeof apiEnvSchema>(
  schema: T,
  source: NodeJS.ProcessEnv = process.env,
): z.output<T> & ApiEnv {
  const env = parseEnvironment(schema, source);
  if (env.NETWORK === "live") {
    const missing = (["JWT_SECRET", "SEALING_KEY", "PUBLIC_URL"] as const).filter(
      (name) => !env[name],
    );
    if (missing.length > 0) {
      throw new Error(`Invalid environment:\n  ${missing.join(", ")}: required with NETWORK=live`);
    }
  }
  return { ...env, DEPLOYMENT_FILE: deploymentFileOf(env) };
}
