import { z } from "zod/v4";
import { deploymentFileOf, ENV_FIELDS, envFields, parseEnvironment } from "../lib/env.ts";

const startEnvSchema = z.object({
  ...envFields(
    "DATA_DIR",
    "DEPLOYMENT_FILE",
    "ANVIL_PORT",
    "DEPLOYER_PRIVATE_KEY",
    "AUTHORITY_ADDRESS",
    "OPERATOR_ADDRESS",
    "FEE_RECIPIENT_ADDRESS",
    "RECEIPTS_SIGNER_ADDRESS",
    "POSTGRES_PORT",
    "PONDER_PORT",
    "API_PORT",
    "VIEWS_SCHEMA",
    "DEMO_AGENT_PORT",
    "DEMO_VENDOR_PORT",
    "LOG_LEVEL",
  ),
  /** At rest the poll is most of the marketplace's CPU: 2 a second keep the dashboard within 2 s. */
  PONDER_POLLING_INTERVAL_MS: ENV_FIELDS.PONDER_POLLING_INTERVAL_MS.unwrap().default(500),
  // Unset, `npm start` runs its own chain and database.
  RPC_URL: ENV_FIELDS.RPC_URL.optional(),
  DATABASE_URL: ENV_FIELDS.DATABASE_URL.optional(),
});

/** The environment of `npm start` and `npm run deploy`, parsed once at boot. */
export function parseStartEnv(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnvironment(startEnvSchema, source);
  return { ...env, DEPLOYMENT_FILE: deploymentFileOf(env) };
}
