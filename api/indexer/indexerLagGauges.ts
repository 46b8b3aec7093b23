import { collectedGauge } from "../../lib/metrics/collectedGauge.ts";
import type { IndexerLagReader } from "./indexerLag.ts";

/**
 * The indexer's lag as `GET /v1/indexer` gives it, read at each scrape (at most one Postgres read a
 * second, shared with the API's answers). Unknown is -1.
 */
export function gaugeIndexerLag(indexer: IndexerLagReader): void {
  collectedGauge(
    "marketplace_indexer_behind_seconds",
    "How long the chain's head has been past the indexer's last block; -1 when unknown",
    async () => (await indexer.read()).behind_seconds ?? -1,
  );
  collectedGauge(
    "marketplace_indexer_behind_blocks",
    "Blocks between the chain's head and the indexer's last block; -1 when unknown",
    async () => (await indexer.read()).behind_blocks ?? -1,
  );
  collectedGauge(
    "marketplace_indexer_checked_age_seconds",
    "Age of the indexer supervisor's last recorded check; -1 when none",
    async () => {
      const { checked_at } = await indexer.read();
      return checked_at ? (Date.now() - Date.parse(checked_at)) / 1000 : -1;
    },
  );
}
