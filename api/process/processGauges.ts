import { collectedGauge } from "../../lib/metrics/collectedGauge.ts";
import type { ChainHeads } from "../chain/chainHeads.ts";

/** What one API process holds of its own, read at each scrape without a round trip. */
export function gaugeApiProcess({
  heads,
  inputValidation,
}: {
  heads: ChainHeads;
  inputValidation: { waiting: () => number };
}): void {
  collectedGauge(
    "marketplace_chain_head_age_seconds",
    "Age of the chain's head block this process last heard of; -1 while it hears none",
    async () => {
      const head = heads.latest();
      return head ? Math.max(0, Date.now() / 1000 - Number(head.timestamp)) : -1;
    },
  );
  collectedGauge(
    "marketplace_input_checks_waiting",
    "Task input checks waiting for a validation thread",
    async () => inputValidation.waiting(),
    "sum",
  );
}
