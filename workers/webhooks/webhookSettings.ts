import { envFields } from "../../lib/env.ts";

/** What webhook delivery reads from the environment, in every process that runs the workers. */
export const WEBHOOK_ENV = envFields("WEBHOOK_RETRY_BASE_MS", "WEBHOOK_ATTEMPT_TIMEOUT_MS");

export type WebhookSettings = {
  /** The wait after a delivery's first failed attempt, doubling after each later one. */
  retryBaseMs: number;
  /** One attempt's deadline, from connecting to the endpoint's answer. */
  attemptTimeoutMs: number;
};

/** The webhook options of `startWorkers`, from the parsed environment. */
export function webhookSettings(env: {
  WEBHOOK_RETRY_BASE_MS: number;
  WEBHOOK_ATTEMPT_TIMEOUT_MS: number;
}): WebhookSettings {
  return {
    retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
    attemptTimeoutMs: env.WEBHOOK_ATTEMPT_TIMEOUT_MS,
  };
}
