import { envFields } from "../lib/env.ts";
import { loadOutboundPolicy } from "./execution/outbound/outboundPolicy.ts";
import type { WorkersOptions } from "./startWorkers.ts";

/** What task execution reads from the environment, in every process that runs the workers. */
export const EXECUTION_ENV = envFields(
  "DATA_DIR",
  "DEPLOYMENT_FILE",
  "RUN_WORKER_CONCURRENCY",
  "RUN_LEASE_MS",
  "RUN_QUEUE_WAIT_MS",
  "RUN_OUTPUT_STORE_BYTES",
  "RUN_OUTPUT_RETENTION_DAYS",
  "ALLOW_PRIVATE_ENDPOINTS",
  "OPENAI_BASE_URL",
  "ANTHROPIC_BASE_URL",
  "TOOL_REPOSITORY_BASE_URL",
);

type ExecutionEnv = {
  DATA_DIR: string;
  DEPLOYMENT_FILE?: string;
  RUN_WORKER_CONCURRENCY: number;
  RUN_LEASE_MS: number;
  RUN_QUEUE_WAIT_MS: number;
  RUN_OUTPUT_STORE_BYTES: number;
  RUN_OUTPUT_RETENTION_DAYS: number;
  ALLOW_PRIVATE_ENDPOINTS?: boolean;
  OPENAI_BASE_URL: string;
  ANTHROPIC_BASE_URL: string;
  TOOL_REPOSITORY_BASE_URL?: string;
};

/** The execution options of `startWorkers`, from the parsed environment. */
export async function executionSettings(env: ExecutionEnv): Promise<WorkersOptions["execution"]> {
  return {
    policy: await loadOutboundPolicy(env),
    vendors: { openaiBaseUrl: env.OPENAI_BASE_URL, anthropicBaseUrl: env.ANTHROPIC_BASE_URL },
    repositoryBaseUrl: env.TOOL_REPOSITORY_BASE_URL,
    concurrency: env.RUN_WORKER_CONCURRENCY,
    leaseMs: env.RUN_LEASE_MS,
    queueWaitMs: env.RUN_QUEUE_WAIT_MS,
    outputStoreBytes: env.RUN_OUTPUT_STORE_BYTES,
    outputRetentionDays: env.RUN_OUTPUT_RETENTION_DAYS,
  };
}
