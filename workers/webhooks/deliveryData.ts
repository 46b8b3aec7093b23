import { eq } from "drizzle-orm";
import { runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { exactJson } from "../../lib/exactJson.ts";
import { runView } from "../../lib/runLedger/runView.ts";
import type { ClaimedDelivery } from "./claimDeliveries.ts";

/**
 * A delivery's `data` as JSON text: as enqueued, or for a run's event its first time, the run as
 * `GET /v1/runs/:run_id` shows it (its answer final by then: it never changes), which never holds
 * the request, an agent's prompt or credentials. Undefined when the run is gone.
 */
export async function deliveryData(
  db: Database,
  delivery: Pick<ClaimedDelivery, "data" | "runId">,
): Promise<string | undefined> {
  if (delivery.data !== null) return delivery.data;
  if (delivery.runId === null) return undefined;
  const [row] = await db
    .select({
      id: runs.id,
      onChainListingId: runs.onChainListingId,
      status: runs.status,
      charge: runs.charge,
      output: runs.output,
      failure: runs.failure,
      costWei: runs.costWei,
      reservedWei: runs.reservedWei,
      durationMs: runs.durationMs,
      outputTruncated: runs.outputTruncated,
      outputSha256: runs.outputSha256,
    })
    .from(runs)
    .where(eq(runs.id, delivery.runId));
  return row && exactJson(runView(row));
}

/** The body every attempt sends: `{type, timestamp, data}`, as Standard Webhooks recommends. */
export function deliveryBody(
  delivery: Pick<ClaimedDelivery, "type" | "occurredAt">,
  data: string,
): string {
  const head = JSON.stringify({
    type: delivery.type,
    timestamp: delivery.occurredAt.toISOString(),
  });
  return `${head.slice(0, -1)},"data":${data}}`;
}
