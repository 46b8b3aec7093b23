// Every environment variable of every process, defined once; each process parses the ones it reads,
// once at boot, and stops on a bad value naming the variable. `.env.example` documents them all.
import { type Address, isAddress, isHex } from "viem";
import { z } from "zod/v4";
import { loadDotEnv } from "./dotEnv.ts";
import { createLogger, LOG_LEVELS } from "./log.ts";
import { SCHEMA_COMPILE_BUDGET_MS } from "./manifest/manifestValidationThreads.ts";
import { trustProxySchema } from "./net/trustProxy.ts";
import { unknownVariables } from "./unknownVariables.ts";

const port = z.coerce.number().int().min(1).max(65535);
const address = z
  .string()
  .refine((value) => isAddress(value), "must be a 0x address")
  .transform((value) => value as Address);
const privateKey = z
  .string()
  .refine((value) => isHex(value) && value.length === 66, "must be a 0x-prefixed 32-byte hex key")
  .transform((value) => value as `0x${string}`);
const hexKey = z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters");
const flag = z.enum(["true", "false"]).transform((value) => value === "true");

export const ENV_FIELDS = {
  DATA_DIR: z.string().default(".data"),
  DEPLOYMENT_FILE: z.string().optional(),
  RPC_URL: z.url(),
  /**
   * Where the API hears of new blocks (`eth_subscribe`); unset, RPC_URL with `ws:` or `wss:`. Without
   * one that answers, each credential check reads the latest block itself.
   */
  RPC_WS_URL: z.url().optional(),
  DATABASE_URL: z.string().startsWith("postgres"),
  /** One server, or every server of a cluster comma-separated: a client fails over between them. */
  NATS_URL: z
    .string()
    .refine(
      (value) => value.split(",").every((url) => url.trim().startsWith("nats://")),
      "must be nats:// URLs, comma-separated",
    ),
  /** Copies JetStream keeps of each stream the bus creates: 3 on a 3-node cluster, 1 on one server. */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  VIEWS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,44}$/)
    .default("marketplace"),
  ANVIL_PORT: port.default(8545),
  POSTGRES_PORT: port.default(54329),
  PONDER_PORT: port.default(42069),
  PONDER_POLLING_INTERVAL_MS: z.coerce.number().int().positive().default(100),
  /** Unset, anvil's public dev accounts: on the local chain only (scripts/deploymentAccounts.ts). */
  DEPLOYER_PRIVATE_KEY: privateKey.optional(),
  /** The key that settles runs; unset, the local operator on the local chain only (lib/chain/operatorAccount.ts). */
  OPERATOR_PRIVATE_KEY: privateKey.optional(),
  AUTHORITY_ADDRESS: address.optional(),
  OPERATOR_ADDRESS: address.optional(),
  FEE_RECIPIENT_ADDRESS: address.optional(),
  /** Whose signature the contract names as the receipts' (docs/receipts.md); unset, dev account 19 on the local chain only. */
  RECEIPTS_SIGNER_ADDRESS: address.optional(),
  /** The key the API signs run receipts with; unset, the local receipts signer on the local chain only. */
  RECEIPTS_PRIVATE_KEY: privateKey.optional(),
  API_HOST: z.string().default("127.0.0.1"),
  API_PORT: port.default(8080),
  /** Processes serving the API alone (`api/process/server.ts`) on its one port; 1 runs no cluster. */
  /** The built dashboard the API serves at `/`; `npm start` builds it there. */
  DASHBOARD_DIR: z.string().default("dashboard/dist"),
  /** The JSON-RPC endpoint the dashboard's browsers read the chain through; unset, RPC_URL on the local chain only. */
  DASHBOARD_RPC_URL: z.url().optional(),
  API_PROCESSES: z.coerce.number().int().positive().default(1),
  JWT_SECRET: z.string().min(32).optional(),
  /** How long a wallet's JWT is valid: the spec's hour; shorter for tests of renewal. */
  JWT_LIFETIME_SECONDS: z.coerce.number().int().min(5).max(3600).default(3600),
  NETWORK: z.enum(["test", "live"]).default("test"),
  SERVICE_NAME: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,30}$/)
    .default("intl"),
  /** Where clients reach the API (scheme, host, port): sign-in messages name it. */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .refine((value) => new URL(value).pathname === "/", "must be an origin, without a path")
    .optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(100),
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(30),
  /** Executions per minute per credential (wallet and listing), unless the listing's creator set one. */
  EXECUTION_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /** The most executions per minute per credential a listing's creator may set for its listing. */
  MAX_EXECUTION_RATE_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** Registrations and versions one wallet may have queued at once. */
  REGISTRATIONS_QUEUED_PER_WALLET: z.coerce.number().int().positive().default(10),
  /** Agents one wallet may hold registered and never listed on-chain. */
  UNLISTED_AGENTS_PER_WALLET: z.coerce.number().int().positive().default(50),
  /** Unset, `X-Forwarded-For` is ignored: the socket's peer is the client. */
  TRUST_PROXY: trustProxySchema.optional(),
  SEALING_KEY: hexKey.optional(),
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  REGISTRATION_ACK_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  /** How long a submitted debit batch may fail to reconcile, the chain answering, before it is set aside. */
  SETTLEMENT_RECONCILE_PATIENCE_MS: z.coerce.number().int().positive().default(60_000),
  /** Blocks mined on top of a debit batch's before its receipt is final; unset, 0 on the local chain, else 2. */
  SETTLEMENT_CONFIRMATIONS: z.coerce.number().int().min(0).max(1_000).optional(),
  SCHEMA_COMPILE_BUDGET_MS: z.coerce.number().int().positive().default(SCHEMA_COMPILE_BUDGET_MS),
  /** A run admitted this long ago that no slot of its listing took is refused (503). */
  RUN_QUEUE_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  /** Runs a worker process runs at once: they wait on agents, not on its CPU. */
  RUN_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(32),
  /** How long a worker's word that it runs a run holds; renewed every third of it. */
  RUN_LEASE_MS: z.coerce.number().int().min(1_000).default(15_000),
  /** The most of a run's output kept in `app.runs`, as JSON text in bytes; past it a cut copy and its hash. */
  RUN_OUTPUT_STORE_BYTES: z.coerce.number().int().min(1_024).default(262_144),
  /** Days a finished run's output is kept in `app.runs`; the run's row, outcome and charge stay. */
  RUN_OUTPUT_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /** The wait before a webhook delivery's second attempt; it doubles at each later one, up to an hour. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().default(5_000),
  /** How long one attempt at a webhook delivery may take, from connecting to its answer's status. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Unset, true only on the local chain (31337): see workers/execution/outbound/outboundPolicy.ts. */
  ALLOW_PRIVATE_ENDPOINTS: flag.optional(),
  /** Where declarative agents reach the first hosted vendor (regional endpoints, proxies, tests). */
  OPENAI_BASE_URL: z.url().default("https://api.openai.com/v1"),
  /** Where declarative agents reach the second hosted vendor. */
  ANTHROPIC_BASE_URL: z.url().default("https://api.anthropic.com"),
  /** Where repo_scoped tools read repositories' files; unset, https://raw.githubusercontent.com. */
  TOOL_REPOSITORY_BASE_URL: z.url({ protocol: /^https$/ }).optional(),
  /** Lines below this level are left out: `debug` adds them, `warn` leaves out each request's. */
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** Where a worker process answers `/healthz` and `/readyz`; unset, it serves none. */
  HEALTH_PORT: port.optional(),
  /** The address a worker process's `/healthz` and `/readyz` listen on. */
  HEALTH_HOST: z.string().default("127.0.0.1"),
  /** Where a process serves Prometheus text on `/metrics`; unset, it serves none. */
  METRICS_PORT: port.optional(),
  /** The address `/metrics` listens on. */
  METRICS_HOST: z.string().default("127.0.0.1"),
  /** Where traces go over OTLP/HTTP (JSON), `/v1/traces` appended; unset, no process traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Where traces go, the whole URL; wins over OTEL_EXPORTER_OTLP_ENDPOINT, and turns tracing on too. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  /** The traces' `service.name`; unset, `api`, `workers` or `embedded` after the process. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** Milliseconds between two exports of finished spans. */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().positive().default(5_000),
  DEMO_AGENT_PORT: port.default(8443),
  /** Port of the vendor emulator `npm start` runs the demo's declarative agent on (local chain). */
  DEMO_VENDOR_PORT: port.default(8444),
};

type Fields = typeof ENV_FIELDS;
type FieldName = keyof Fields;

/** The fields named, for a process's own `z.object({...})` (where it may make one optional). */
export function envFields<K extends FieldName>(...names: K[]): Pick<Fields, K> {
  return Object.fromEntries(names.map((name) => [name, ENV_FIELDS[name]])) as Pick<Fields, K>;
}

let bootChecked = false;

/**
 * The process's own environment, first read: `.env` loaded under it (the environment wins), and a
 * warning for each variable that looks like a misspelling of a known one, naming that one.
 */
function prepareProcessEnvironment(): void {
  if (bootChecked) return;
  bootChecked = true;
  loadDotEnv();
  const log = createLogger("env");
  for (const { name, closest } of unknownVariables(process.env, Object.keys(ENV_FIELDS))) {
    // OpenTelemetry's own: the exporter reads many more than the few listed here.
    if (name.startsWith("OTEL_")) continue;
    log.warn(`unknown variable ${name}: did you mean ${closest}?`, { variable: name, closest });
  }
}

/**
 * Parses the environment once at boot; a bad value stops the process naming the variable. The
 * process's own environment (the default `source`) includes `.env`, where it does not set a variable.
 */
export function parseEnvironment<T extends z.ZodType>(
  schema: T,
  source: NodeJS.ProcessEnv = process.env,
): z.output<T> {
  if (source === process.env) prepareProcessEnvironment();
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join(".")}: ${issue.message}`,
    );
    throw new Error(`Invalid environment:\n  ${problems.join("\n  ")}`);
  }
  return result.data;
}

/** DEPLOYMENT_FILE, by default `deployment.json` in DATA_DIR. */
export function deploymentFileOf(env: { DATA_DIR: string; DEPLOYMENT_FILE?: string }): string {
  return env.DEPLOYMENT_FILE ?? `${env.DATA_DIR}/deployment.json`;
}
