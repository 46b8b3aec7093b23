import { z } from "zod/v4";
import { MAX_URL_LENGTH } from "../../lib/manifest/manifestShape.ts";
import { WEBHOOK_EVENTS } from "../../lib/webhooks/webhookEvents.ts";
import { queryInteger } from "../http/validation.ts";
import { decodeDeliveryCursor } from "./deliveryCursor.ts";

/**
 * Where deliveries go: an https:// URL with a host and no credentials, as a connected agent's
 * `entrypoint_url`; the outbound guard decides at each attempt which addresses it may reach.
 */
const endpointUrl = z
  .string()
  .max(MAX_URL_LENGTH)
  .refine((text) => {
    const url = URL.parse(text);
    return url !== null && url.protocol === "https:" && url.hostname !== "";
  }, "must be an https:// URL with a host")
  .refine((text) => {
    const url = URL.parse(text);
    return url === null || (url.username === "" && url.password === "");
  }, "must not carry credentials (user:password@)");

export const createWebhookRequest = z.object({
  url: endpointUrl.describe("Where the events are POSTed: an https:// URL"),
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1)
    .max(WEBHOOK_EVENTS.length * 2)
    // Each event once, in the order of the list of events.
    .transform((events) => WEBHOOK_EVENTS.filter((event) => events.includes(event)))
    .describe("The events to deliver, at least one"),
});

/** The query of `GET /v1/webhooks/:id/deliveries`. */
export const deliveryListQuery = z.object({
  limit: queryInteger(1, 100).default(20).describe("Deliveries per page, 1 to 100"),
  cursor: z
    .string()
    .transform((text, context) => {
      const cursor = decodeDeliveryCursor(text);
      if (!cursor) context.addIssue({ code: "custom", message: "not a cursor this API gave" });
      return cursor ?? { createdAtMicros: 0n, id: "" };
    })
    .optional()
    .describe("The `next_cursor` of the page before"),
});

export type DeliveryListQuery = z.output<typeof deliveryListQuery>;
