import type { Bus } from "../bus/bus.ts";

export const RUN_SUBJECT = "runs.execute";

/**
 * Hands a `queued` run to the workers (message id = run id, so a repeat within the bus's dedupe
 * window is dropped). A publish lost on the way is repaired by the sweeper, which republishes runs
 * queued for too long.
 */
export async function publishRun(bus: Bus, runId: string): Promise<void> {
  await bus.publish(RUN_SUBJECT, runId, new TextEncoder().encode(runId));
}
