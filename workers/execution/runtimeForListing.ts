import type { Database } from "../../lib/db/projections.ts";
import type { RuntimeFor } from "./runAgent.ts";

/** What a run of an agent this marketplace has no runtime for fails with. */
export const NO_RUNTIME = "this agent cannot be run yet";

/**
 * The runtime of each listing's agent, opened from its sealed private part. No runtime is composed
 * here yet: every run fails, its reservation released, rather than wait for one.
 */
export function runtimeForListing(_deps: { db: Database; sealingKey: Uint8Array }): RuntimeFor {
  return () => async () => ({ status: "failed", output: "", failure: NO_RUNTIME });
}
