// The declarative agents the overhead benchmark runs beside the echo agent: one per provider, each
// on a model of its own at the model servers (devStack/startModelServers.ts), registered through the
// API with a text output, listed one-time and bought by every renter of the execution fixture.
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { registerAgent } from "../devStack/client/registerAgent.ts";
import { signIn } from "../devStack/client/signIn.ts";
import { ONE_TIME } from "../devStack/marketplace.ts";
import type { ModelServers } from "../devStack/startModelServers.ts";
import type { Stack } from "../devStack/startStack.ts";
import type { VendorEmulator } from "../devStack/vendorEmulator/startVendorEmulator.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import type { ModelProvider } from "../lib/manifest/manifestShape.ts";
import { PRICE } from "./executionFixture.ts";

export type DeclarativeBenchAgent = {
  provider: ModelProvider;
  /** The on-chain listing id. */
  listing: Hex;
  /** Where its model runs, and the model's name there: its requests name it. */
  server: VendorEmulator;
  model: string;
};

export async function listDeclarativeAgents(
  stack: Stack,
  servers: ModelServers,
  providers: ModelProvider[],
  renters: HDAccount[],
): Promise<DeclarativeBenchAgent[]> {
  const creator = devAccount(2);
  const token = await signIn(stack.api.url, creator);
  const market = stack.marketplace;
  const agents: DeclarativeBenchAgent[] = [];
  for (const provider of providers) {
    const model = `bench-${provider}`;
    const server = provider === "self_hosted" ? servers.selfHosted : servers.vendor;
    const registered = await registerAgent(stack.api.url, token, {
      name: `declarative-${provider.replace("_", "-")}`,
      category: "research",
      description: `Answers each task in a line, on ${provider}`,
      model:
        provider === "self_hosted"
          ? { provider, model, endpoint_url: server.selfHostedBaseUrl }
          : { provider, model },
      system_prompt: "Answer the task in one line.",
      input_schema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
      output_schema: { type: "string" },
      ...(provider !== "self_hosted" && {
        vendor_credentials: { api_key: `sk-bench-${provider}-0123456789` },
      }),
    });
    const { seed, metadata_uri, on_chain_listing_id } = registered.create_listing;
    await market.mined(
      market.as(creator).write.createListing([seed, ONE_TIME, PRICE, metadata_uri]),
    );
    agents.push({ provider, listing: on_chain_listing_id, server, model });
  }
  let lastBlock = 0n;
  await Promise.all(
    renters.map(async (renter) => {
      for (const { listing } of agents) {
        const receipt = await market.mined(
          market.as(renter).write.purchaseOneTime([listing], { value: PRICE }),
        );
        if (receipt.blockNumber > lastBlock) lastBlock = receipt.blockNumber;
      }
    }),
  );
  await stack.ponder.waitForBlock(lastBlock);
  return agents;
}
