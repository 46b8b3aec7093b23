import { PER_QUERY } from "../../devStack/marketplace.ts";
import type { ModelServers } from "../../devStack/startModelServers.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import type { ModelProvider } from "../../lib/manifest/manifestShape.ts";
import { type PerTaskListing, registerAndListAgent } from "./connectedListing.ts";
import { http, signIn } from "./http.ts";

export type DeclarativeListing = PerTaskListing & { provider: ModelProvider; model: string };

/**
 * Registers a declarative agent on `provider` (the model named `model`, so a test scripts it alone)
 * and lists it per task at `price`; `manifest` adds to or overrides the manifest's fields.
 */
export async function listDeclarativeAgent(
  stack: Stack,
  servers: ModelServers,
  {
    name,
    provider,
    price,
    manifest = {},
    vendorKey = `sk-test-${name}-0123456789`,
  }: {
    name: string;
    provider: ModelProvider;
    price: bigint;
    manifest?: Record<string, unknown>;
    /** The creator's key for a hosted vendor; null registers the agent without one. */
    vendorKey?: string | null;
  },
): Promise<DeclarativeListing> {
  const model = `model-${name}`;
  const creator = devAccount(2);
  const creatorApi = http(stack.api.url, { bearer: await signIn(stack.api.url, creator) });
  const { listingId, agentId } = await registerAndListAgent(stack, {
    creator,
    creatorApi,
    model: PER_QUERY,
    price,
    manifest: {
      name,
      category: "research",
      description: `Agent ${name}, run on ${provider}`,
      model:
        provider === "self_hosted"
          ? { provider, model, endpoint_url: servers.selfHosted.selfHostedBaseUrl }
          : { provider, model },
      system_prompt: `You are ${name}. Answer briefly.`,
      input_schema: { type: "object" },
      output_schema: { type: "string" },
      ...manifest,
      ...(provider !== "self_hosted" &&
        vendorKey !== null && { vendor_credentials: { api_key: vendorKey } }),
    },
  });
  return { listingId, agentId, price, provider, model };
}

/** The emulator a listing's model runs on. */
export const serverOf = (servers: ModelServers, listing: DeclarativeListing) =>
  listing.provider === "self_hosted" ? servers.selfHosted : servers.vendor;
