import { randomBytes } from "node:crypto";

/** Ids the service mints: a prefix naming the kind, then 96 random bits in hex. */
function randomIdFormat(prefix: string) {
  const pattern = new RegExp(`^${prefix}_[0-9a-f]{24}$`);
  return {
    create: () => `${prefix}_${randomBytes(12).toString("hex")}`,
    matches: (text: string) => pattern.test(text),
  };
}

const jobId = randomIdFormat("job");
const apiKeyId = randomIdFormat("key");
const runId = randomIdFormat("run");
const reviewId = randomIdFormat("rev");
const webhookEndpointId = randomIdFormat("whk");
/** A webhook delivery's id (`webhook-id`): the database makes them (migration 0019), in this format. */
const webhookMessageId = randomIdFormat("msg");

export const newJobId = jobId.create;
export const isJobId = jobId.matches;
export const newApiKeyId = apiKeyId.create;
export const isApiKeyId = apiKeyId.matches;
export const newRunId = runId.create;
export const isRunId = runId.matches;
export const newReviewId = reviewId.create;
export const isReviewId = reviewId.matches;
export const newWebhookEndpointId = webhookEndpointId.create;
export const isWebhookEndpointId = webhookEndpointId.matches;
export const isWebhookMessageId = webhookMessageId.matches;
