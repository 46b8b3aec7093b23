import { and, count, desc, eq, sql } from "drizzle-orm";
import { newWebhookSecret } from "../../lib/agents/webhookSecret.ts";
import { webhookEndpoints } from "../../lib/db/appSchema.ts";
import { isWebhookEndpointId, newWebhookEndpointId } from "../../lib/ids/randomIds.ts";
import { sealEndpointSecret } from "../../lib/webhooks/endpointSecret.ts";
import { ApiError } from "../http/errors.ts";
import { parseJsonBody, parseQuery } from "../http/validation.ts";
import { MAX_WEBHOOK_ENDPOINTS_PER_WALLET } from "../limits.ts";
import { AUTHENTICATED, WEBHOOK_ID } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerWallet } from "../process/context.ts";
import { endpointView } from "../webhooks/endpointView.ts";
import { listDeliveries } from "../webhooks/listDeliveries.ts";
import { createWebhookRequest, deliveryListQuery } from "../webhooks/webhookRequests.ts";

export const webhookRoutes = new DescribedRoutes("/v1/webhooks");

/** Another wallet's endpoint and one that never was answer alike: no way to learn one exists. */
const NO_SUCH_ENDPOINT = "No webhook endpoint of yours has this id";

const shown = {
  id: webhookEndpoints.id,
  url: webhookEndpoints.url,
  events: webhookEndpoints.events,
  droppedEvents: webhookEndpoints.droppedEvents,
  createdAt: webhookEndpoints.createdAt,
};

/** The caller's endpoint `id`, or 404. */
function ownEndpoint(wallet: string, id: string) {
  if (!isWebhookEndpointId(id)) throw new ApiError("not_found", NO_SUCH_ENDPOINT);
  return and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.wallet, wallet.toLowerCase()));
}

/**
 * Registers an endpoint for the caller's events. Its signing secret is made here, sealed at rest and
 * shown in this answer only.
 */
webhookRoutes.post(
  "/",
  {
    tag: "Webhooks",
    summary: "Register a webhook endpoint",
    description:
      "Delivers the caller's events there (see the document's `webhooks`): `run.completed` and " +
      "`run.failed` of its runs, `credential.low_balance` and `credential.expiring` of its " +
      "credentials, `listing.purchased` and `listing.reviewed` of the listings it created. Each " +
      "delivery is a Standard Webhooks POST signed with the endpoint's `secret`, shown in this " +
      "answer only; it is retried with exponential backoff for 24 hours until answered 2xx. A " +
      "wallet holds at most 10 endpoints.",
    security: "bearer",
    scope: "run",
    body: createWebhookRequest,
    answer: {
      status: 201,
      description: "The endpoint, with its secret",
      schema: answers.createdWebhookEndpoint,
    },
    errors: ["invalid_request", "payload_too_large", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const { url, events } = await parseJsonBody(c, createWebhookRequest);
    const deps = c.get("deps");
    const wallet = callerWallet(c).toLowerCase();
    const id = newWebhookEndpointId();
    const secret = newWebhookSecret();
    const sealed = sealEndpointSecret(deps.sealingKey, id, secret);
    const created = await deps.db.transaction(async (tx) => {
      // One creation at a time per wallet, so concurrent requests cannot pass the bound together.
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtext(${`webhook-endpoints:${wallet}`}))`,
      );
      const [held] = await tx
        .select({ n: count() })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.wallet, wallet));
      if ((held?.n ?? 0) >= MAX_WEBHOOK_ENDPOINTS_PER_WALLET) {
        throw new ApiError(
          "invalid_request",
          `A wallet may hold ${MAX_WEBHOOK_ENDPOINTS_PER_WALLET} webhook endpoints; delete one to add another`,
        );
      }
      const [row] = await tx
        .insert(webhookEndpoints)
        .values({
          id,
          wallet,
          url,
          events,
          secret: sealed.sealed,
          sealingKeyId: sealed.sealingKeyId,
        })
        .returning(shown);
      return row;
    });
    if (!created) throw new Error("the new webhook endpoint was not stored");
    return reply(c, { ...endpointView(created), secret });
  },
);

webhookRoutes.get(
  "/",
  {
    tag: "Webhooks",
    summary: "List the caller's webhook endpoints",
    security: "bearer",
    scope: "read",
    answer: { status: 200, description: "The endpoints", schema: answers.webhookEndpointList },
    errors: AUTHENTICATED,
  },
  async (c, reply) => {
    const rows = await c
      .get("deps")
      .db.select(shown)
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.wallet, callerWallet(c).toLowerCase()))
      .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
    return reply(c, { webhooks: rows.map(endpointView) });
  },
);

webhookRoutes.get(
  "/:id",
  {
    tag: "Webhooks",
    summary: "Get one of the caller's webhook endpoints",
    security: "bearer",
    scope: "read",
    pathParameters: { id: WEBHOOK_ID },
    answer: { status: 200, description: "The endpoint", schema: answers.webhookEndpoint },
    errors: ["not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const [row] = await c
      .get("deps")
      .db.select(shown)
      .from(webhookEndpoints)
      .where(ownEndpoint(callerWallet(c), c.req.param("id")));
    if (!row) throw new ApiError("not_found", NO_SUCH_ENDPOINT);
    return reply(c, endpointView(row));
  },
);

/** Deletes the endpoint, and with it its deliveries: nothing more is sent to it. */
webhookRoutes.delete(
  "/:id",
  {
    tag: "Webhooks",
    summary: "Delete one of the caller's webhook endpoints",
    description: "Nothing more is delivered there; its deliveries go with it.",
    security: "bearer",
    scope: "run",
    pathParameters: { id: WEBHOOK_ID },
    answer: { status: 200, description: "The endpoint deleted", schema: answers.webhookEndpoint },
    errors: ["not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const [row] = await c
      .get("deps")
      .db.delete(webhookEndpoints)
      .where(ownEndpoint(callerWallet(c), c.req.param("id")))
      .returning(shown);
    if (!row) throw new ApiError("not_found", NO_SUCH_ENDPOINT);
    return reply(c, endpointView(row));
  },
);

/** The endpoint's delivery log, newest first, a page at a time; never a body. */
webhookRoutes.get(
  "/:id/deliveries",
  {
    tag: "Webhooks",
    summary: "An endpoint's delivery log",
    description:
      "Its deliveries, newest first, paged by cursor as `GET /v1/runs` is: each one's event, " +
      "attempts and where it stands, never its body.",
    security: "bearer",
    scope: "read",
    pathParameters: { id: WEBHOOK_ID },
    query: deliveryListQuery,
    answer: {
      status: 200,
      description: "A page of deliveries",
      schema: answers.webhookDeliveryPage,
    },
    errors: ["invalid_request", "not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const query = parseQuery(c, deliveryListQuery);
    const deps = c.get("deps");
    const [row] = await deps.db
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(ownEndpoint(callerWallet(c), c.req.param("id")));
    if (!row) throw new ApiError("not_found", NO_SUCH_ENDPOINT);
    return reply(c, await listDeliveries(deps.db, row.id, query));
  },
);
