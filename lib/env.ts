import { type Address, isAddress, isHex } from "viem";
import { z } from "zod/v4";
import { devAccount, devPrivateKey } from "./chain/devAccounts.ts";
import { parseEnvironment } from "./parseEnvironment.ts";

const address = z
  .string()
  .refine((value) => isAddress(value), "must be a 0x address")
  .transform((value) => value as Address);
const privateKey = z
  .string()
  .refine((value) => isHex(value) && value.length === 66, "must be a 0x-prefixed 32-byte hex key")
  .transform((value) => value as `0x${string}`);

const envSchema = z.object({
  DATA_DIR: z.string().default(".data"),
  RPC_URL: z.url().optional(),
  ANVIL_PORT: z.coerce.number().int().min(1).max(65535).default(8545),
  DEPLOYMENT_FILE: z.string().optional(),
  DEPLOYER_PRIVATE_KEY: privateKey.default(devPrivateKey(0)),
  AUTHORITY_ADDRESS: address.default(devAccount(0).address),
  FEE_RECIPIENT_ADDRESS: address.default(devAccount(1).address),
  DATABASE_URL: z.string().startsWith("postgres").optional(),
  POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  PONDER_PORT: z.coerce.number().int().min(1).max(65535).default(42069),
  API_PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  VIEWS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,44}$/)
    .default("marketplace"),
});

export type Env = z.infer<typeof envSchema> & { DEPLOYMENT_FILE: string };

/** The environment of `npm start`, parsed once at boot. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const env = parseEnvironment(envSchema, source);
  return { ...env, DEPLOYMENT_FILE: env.DEPLOYMENT_FILE ?? `${env.DATA_DIR}/deployment.json` };
}
