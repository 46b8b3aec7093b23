import { and, count, desc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { newWebhookSecret } from "../../lib/agents/webhookSecret.ts";
import { webhookEndpoints } from "../../lib/db/appSchema.ts";
import { isWebhookEndpointId, newWebhookEndpointId } from "../../lib/ids/randomIds.ts";
import { sealEndpointSecret } from "../../lib/webhooks/endpointSecret.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";
import { MAX_WEBHOOK_ENDPOINTS_PER_WALLET } from "../limits.ts";
import { parseJsonBody, parseQuery } from "../validation.ts";
import { endpointView } from "../webhooks/endpointView.ts";
import { listDeliveries } from "../webhooks/listDeliveries.ts";
import { createWebhookRequest, deliveryListQuery } from "../webhooks/webhookRequests.ts";

export const webhookRoutes = new Hono<AppEnv>();

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
webhookRoutes.post("/", async (c) => {
  const { url, events } = await parseJsonBody(c, createWebhookRequest);
  const deps = c.get("deps");
  const wallet = callerWallet(c).toLowerCase();
  const id = newWebhookEndpointId();
  const secret = newWebhookSecret();
  const sealed = sealEndpointSecret(deps.sealingKey, id, secret);
  const created = await deps.db.transaction(async (tx) => {
    // One creation at a time per wallet, so concurrent requests cannot pass the bound together.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`webhook-endpoints:${wallet}`}))`);
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
      .values({ id, wallet, url, events, secret: sealed.sealed, sealingKeyId: sealed.sealingKeyId })
      .returning(shown);
    return row;
  });
  if (!created) throw new Error("the new webhook endpoint was not stored");
  return c.json({ ...endpointView(created), secret }, 201);
});

webhookRoutes.get("/", async (c) => {
  const rows = await c
    .get("deps")
    .db.select(shown)
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.wallet, callerWallet(c).toLowerCase()))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
  return c.json({ webhooks: rows.map(endpointView) });
});

webhookRoutes.get("/:id", async (c) => {
  const [row] = await c
    .get("deps")
    .db.select(shown)
    .from(webhookEndpoints)
    .where(ownEndpoint(callerWallet(c), c.req.param("id")));
  if (!row) throw new ApiError("not_found", NO_SUCH_ENDPOINT);
  return c.json(endpointView(row));
});

/** Deletes the endpoint, and with it its deliveries: nothing more is sent to it. */
webhookRoutes.delete("/:id", async (c) => {
  const [row] = await c
    .get("deps")
    .db.delete(webhookEndpoints)
    .where(ownEndpoint(callerWallet(c), c.req.param("id")))
    .returning(shown);
  if (!row) throw new ApiError("not_found", NO_SUCH_ENDPOINT);
  return c.json(endpointView(row));
});

/** The endpoint's delivery log, newest first, a page at a time; never a body. */
webhookRoutes.get("/:id/deliveries", async (c) => {
  const query = parseQuery(c, deliveryListQuery);
  const deps = c.get("deps");
  const [row] = await deps.db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(ownEndpoint(callerWallet(c), c.req.param("id")));
  if (!row) throw new ApiError("not_found", NO_SUCH_ENDPOINT);
  return c.json(await listDeliveries(deps.db, row.id, query));
});
