import { openAgentSecret } from "../../lib/agents/openAgentSecret.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { connectedAgent } from "./connectedAgent.ts";
import type { OutboundPolicy } from "./outbound/outboundPolicy.ts";
import type { RuntimeFor } from "./runAgent.ts";
import type { Runtime } from "./runtime.ts";

/** What a run of an agent this marketplace has no runtime for fails with. */
export const NO_RUNTIME = "this agent cannot be run yet";

const cannotRun: Runtime = async () => ({ status: "failed", output: "", failure: NO_RUNTIME });

/**
 * The runtime of each listing's agent, opened from its sealed private part for that run only:
 * connected agents are called through their signed webhook. Declarative agents have no runtime yet,
 * so their runs fail, uncharged, rather than wait for one.
 */
export function runtimeForListing(deps: {
  db: Database;
  sealingKey: Uint8Array;
  policy: OutboundPolicy;
  log: Logger;
}): RuntimeFor {
  return async (onChainListingId) => {
    const secret = await openAgentSecret(deps.db, deps.sealingKey, onChainListingId);
    if (!secret?.entrypoint_url || !secret.webhook_secret) return cannotRun;
    return connectedAgent(
      { entrypointUrl: secret.entrypoint_url, webhookSecret: secret.webhook_secret },
      { policy: deps.policy, log: deps.log },
    );
  };
}
