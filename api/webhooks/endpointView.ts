import type { webhookEndpoints } from "../../lib/db/appSchema.ts";

type EndpointRow = Pick<
  typeof webhookEndpoints.$inferSelect,
  "id" | "url" | "events" | "droppedEvents" | "createdAt"
>;

/** A webhook endpoint as the API shows it: never its secret, which only its creation answers. */
export function endpointView(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    dropped_events: row.droppedEvents,
    created_at: row.createdAt.toISOString(),
  };
}
