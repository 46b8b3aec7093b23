// A listing's on-chain figures (`run_count`, `success_rate`) as the indexer and the API show them.
import { eq } from "drizzle-orm";
import type { Hex } from "viem";
import type { Stack } from "../../devStack/startStack.ts";
import { projections } from "../../lib/db/projections.ts";
import type { http } from "./http.ts";
import { until } from "./registration.ts";

/**
 * The listing's figures once the indexer has seen every block mined so far: as the projection holds
 * them, and as `GET /v1/listings/:id` (over `api`) answers once its kept answers follow.
 */
export async function indexedFigures(
  stack: Stack,
  listing: { listingId: Hex; agentId: string },
  api: ReturnType<typeof http>,
): Promise<{ run_count: number; success_rate: number }> {
  await stack.ponder.waitForBlock(await stack.marketplace.publicClient.getBlockNumber());
  const [row] = await stack.db
    .select({
      runCount: projections.listing.runCount,
      failedRunCount: projections.listing.failedRunCount,
    })
    .from(projections.listing)
    .where(eq(projections.listing.id, listing.listingId.toLowerCase() as Hex));
  if (!row) throw new Error("the listing is not indexed");
  const expected = {
    run_count: row.runCount,
    success_rate: row.runCount === 0 ? 0 : (row.runCount - row.failedRunCount) / row.runCount,
  };
  return until("the listing's detail to show the indexed figures", async () => {
    const { run_count, success_rate } = (await api.get(`/v1/listings/${listing.agentId}`)).body;
    const shown = { run_count, success_rate };
    return JSON.stringify(shown) === JSON.stringify(expected) && shown;
  });
}
