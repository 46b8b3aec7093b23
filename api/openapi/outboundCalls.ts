import type { z } from "zod/v4";
import * as answers from "./responseSchemas.ts";

/** A call the service makes: an event delivered to a wallet's endpoint, or a run to an agent. */
export type OutboundCall = {
  summary: string;
  description: string;
  body: z.ZodType;
  /** What the receiver's answer does. */
  answers: Record<string, string>;
};

const DELIVERY =
  "POSTed to each endpoint of the wallet subscribed to it, `{type, timestamp, data}`, signed " +
  "with Standard Webhooks headers under the endpoint's secret (`new Webhook(secret).verify(body, " +
  "headers)` in the `standardwebhooks` package, on the raw body). `webhook-id` is the same at " +
  "every attempt of a delivery. A 2xx answer delivers it; any other status, or none within 10 s, " +
  "retries it with exponential backoff for 24 hours; the answer's body is never read.";
const DELIVERED = { "2XX": "Delivered", default: "Retried later" };

/** Every call the service makes, as the document's `webhooks` describe them (docs/webhooks.md). */
export const OUTBOUND_CALLS: Record<string, OutboundCall> = {
  "run.completed": {
    summary: "One of the wallet's runs completed",
    description: `\`data\` is the run as \`GET /v1/runs/{run_id}\` shows it, once its answer is final. ${DELIVERY}`,
    body: answers.webhookBodies.run,
    answers: DELIVERED,
  },
  "run.failed": {
    summary: "One of the wallet's runs failed",
    description: `\`data\` is the run, with its \`failure\`. ${DELIVERY}`,
    body: answers.webhookBodies.run,
    answers: DELIVERED,
  },
  "credential.low_balance": {
    summary: "A per-task balance fell below the price of the next run",
    description: `Once per crossing: a top-up above the price and another crossing announce it again. ${DELIVERY}`,
    body: answers.webhookBodies.credential,
    answers: DELIVERED,
  },
  "credential.expiring": {
    summary: "A subscription expires within three days",
    description: `Once per expiry, by the chain's time. ${DELIVERY}`,
    body: answers.webhookBodies.credential,
    answers: DELIVERED,
  },
  "listing.purchased": {
    summary: "A listing the wallet created was bought",
    description: `Within seconds of the purchase's indexing. ${DELIVERY}`,
    body: answers.webhookBodies.purchase,
    answers: DELIVERED,
  },
  "listing.reviewed": {
    summary: "A listing the wallet created was reviewed, or a review of it edited",
    description: DELIVERY,
    body: answers.webhookBodies.review,
    answers: DELIVERED,
  },
  entrypoint_url: {
    summary: "A run of a connected agent",
    description:
      "POSTed to the agent's `entrypoint_url` once per run, never again, signed with Standard " +
      "Webhooks headers (`webhook-id` the run id) under the agent's secret, " +
      '`result.webhook_secret` of its registration job (docs/execution.md, "Connected agents").',
    body: answers.agentCall,
    answers: {
      "200":
        "`application/json` `{output}`, or `text/event-stream` of `{delta}` events and an optional final `{output}`; the output must match the listing's `output_schema`",
      default: "The run fails",
    },
  },
};
