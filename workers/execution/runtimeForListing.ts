import { sha256, stringToBytes } from "viem";
import type { AgentSecret } from "../../lib/agents/openAgentSecret.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import type { Manifest } from "../../lib/manifest/manifestShape.ts";
import { connectedAgent } from "./connectedAgent.ts";
import { declarativeAgent } from "./declarative/declarativeAgent.ts";
import { outputContract } from "./declarative/outputContract.ts";
import { readInputUri } from "./declarative/readInputUri.ts";
import { openToolbox } from "./declarative/tools/toolbox.ts";
import { type VendorEndpoints, vendorChatModel } from "./declarative/vendorChatModel.ts";
import { guardedFetch } from "./outbound/guardedFetch.ts";
import type { OutboundPolicy } from "./outbound/outboundPolicy.ts";
import type { RuntimeFor } from "./runAgent.ts";
import { identified, type Runtime } from "./runtime.ts";

/** What a run of a listing no agent was registered under fails with. */
export const NO_RUNTIME = "this agent cannot be run";

const cannotRun =
  (failure: string): Runtime =>
  async () => ({ status: "failed", output: "", failure });

/** The public part of a manifest a declarative run needs. */
type PublicManifest = Pick<Manifest, "model" | "tools" | "tool_domains" | "output_schema">;

export type RuntimeDeps = {
  db: Database;
  sealingKey: Uint8Array;
  policy: OutboundPolicy;
  vendors: VendorEndpoints;
  /** Where `repo_scoped` tools read files (TOOL_REPOSITORY_BASE_URL). */
  repositoryBaseUrl?: string;
  log: Logger;
};

/**
 * The runtime of each run's agent, opened from its sealed private part for that run only:
 * connected agents are called through their signed webhook; declarative agents run on their model
 * vendor (or self-hosted server) with the creator's credentials and their built-in tools.
 */
export function runtimeForListing(deps: RuntimeDeps): RuntimeFor {
  return (agent) => {
    const secret = agent?.open(deps.sealingKey);
    if (secret?.entrypoint_url && secret.webhook_secret) {
      return identified(
        connectedAgent(
          { entrypointUrl: secret.entrypoint_url, webhookSecret: secret.webhook_secret },
          { policy: deps.policy, log: deps.log },
        ),
        { endpoint_sha256: sha256(stringToBytes(secret.entrypoint_url)) },
      );
    }
    const manifest = agent?.publicManifest as PublicManifest | null | undefined;
    if (!secret?.system_prompt || !manifest) return cannotRun(NO_RUNTIME);
    return identified(declarativeRuntime(secret.system_prompt, secret, manifest, deps), {
      vendor: manifest.model.provider,
      model: manifest.model.model ?? "",
    });
  };
}

function declarativeRuntime(
  systemPrompt: string,
  secret: AgentSecret,
  manifest: PublicManifest,
  deps: RuntimeDeps,
): Runtime {
  const model = vendorChatModel(manifest.model, secret, {
    endpoints: deps.vendors,
    selfHostedFetch: guardedFetch({ policy: deps.policy }),
  });
  if ("failure" in model) return cannotRun(model.failure);
  const { db, policy, repositoryBaseUrl } = deps;
  return declarativeAgent(
    {
      systemPrompt,
      model,
      output: outputContract(manifest.output_schema),
      openTools: (run, inputText, signal) =>
        openToolbox({
          tools: manifest.tools ?? [],
          toolDomains: manifest.tool_domains ?? [],
          run: { runId: run.runId, task: run.task, input: run.input, inputText },
          policy,
          repositoryBaseUrl,
          db,
          signal,
        }),
      readInputUri: (uri, signal) => readInputUri(uri, { policy, signal }),
    },
    deps.log,
  );
}
