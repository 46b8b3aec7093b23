// A connected agent listed per task the way a creator lists one (registered through the API, its
// listing created on-chain and indexed), and renters each holding a per-task balance of their own.
import type { Hex } from "viem";
import type { HDAccount, PrivateKeyAccount } from "viem/accounts";
import { expect } from "vitest";
import { PER_QUERY } from "../../devStack/marketplace.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { newWallet } from "../settlement/settlementFixtures.ts";
import { type BehavingAgent, SUMMARY_SCHEMA } from "./behavingAgent.ts";
import { http, signIn } from "./http.ts";
import { registerAgent, settledJob } from "./registration.ts";

export type PerTaskListing = { listingId: Hex; agentId: string; price: bigint };

/**
 * Registers `agent` as a connected agent (needs a worker process for the registration), has the
 * agent trust its webhook secret, lists it per task at `price`, and waits for Ponder to index it.
 */
export async function listPerTaskAgent(
  stack: Stack,
  agent: BehavingAgent,
  {
    name,
    price,
    timeoutSeconds = 60,
    outputSchema = SUMMARY_SCHEMA,
    inputSchema = { type: "object" },
    host,
  }: {
    name: string;
    price: bigint;
    timeoutSeconds?: number;
    outputSchema?: object;
    inputSchema?: object;
    /** How the webhook's URL names the agent's server; its loopback address by default. */
    host?: string;
  },
): Promise<PerTaskListing> {
  const creator = devAccount(2);
  const creatorApi = http(stack.api.url, { bearer: await signIn(stack.api.url, creator) });
  const { listingId, agentId, webhookSecret } = await registerAndListAgent(stack, {
    creator,
    creatorApi,
    model: PER_QUERY,
    price,
    manifest: {
      name,
      category: "coding",
      description: "Answers as its task says",
      model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
      entrypoint_url: agent.url(`/agents/${name}`, host),
      input_schema: inputSchema,
      output_schema: outputSchema,
      timeout_seconds: timeoutSeconds,
    },
  });
  agent.trust(webhookSecret);
  return { listingId, agentId, price };
}

/**
 * Registers the agent of `manifest` over `creatorApi`, as `creator` (needs a worker process for the
 * registration), lists it on-chain under `model` at `price`, and waits for Ponder to index it; returns
 * the listing's ids and, for a connected agent, the webhook secret it is to trust.
 */
export async function registerAndListAgent(
  stack: Stack,
  {
    creator,
    creatorApi,
    manifest,
    model,
    price,
  }: {
    creator: HDAccount;
    creatorApi: ReturnType<typeof http>;
    manifest: Record<string, unknown>;
    model: number;
    price: bigint;
  },
): Promise<{ listingId: Hex; agentId: string; webhookSecret: string }> {
  const job = await settledJob(creatorApi, await registerAgent(creatorApi, manifest));
  expect(job.body.status, JSON.stringify(job.body)).toBe("completed");
  const { seed, metadata_uri, on_chain_listing_id } = job.body.result.create_listing;
  const market = stack.marketplace;
  const receipt = await market.mined(
    market.as(creator).write.createListing([seed, model, price, metadata_uri]),
  );
  await stack.ponder.waitForBlock(receipt.blockNumber);
  return {
    listingId: on_chain_listing_id,
    agentId: toApiListingId(on_chain_listing_id),
    webhookSecret: job.body.result.webhook_secret,
  };
}

export type Renter = {
  account: PrivateKeyAccount;
  deposit: bigint;
  /** A wallet token: API processes share the signing key, so it holds across restarts. */
  bearer: string;
  /** The API at `apiUrl()`, as this renter. */
  api: ReturnType<typeof http>;
};

/**
 * A fresh wallet that bought `deposit` of per-task balance on `listing`, signed in. `apiUrl` is read
 * at each request, so a test can point the renter at another API process.
 */
export async function perTaskRenter(
  stack: Stack,
  listing: PerTaskListing,
  deposit: bigint,
  apiUrl: () => string = () => stack.api.url,
): Promise<Renter> {
  const account = await newWallet(stack);
  await stack.marketplace.mined(
    stack.marketplace
      .as(account)
      .write.purchasePerQuery([listing.listingId, listing.price], { value: deposit }),
  );
  const bearer = await signIn(apiUrl(), account);
  return { account, deposit, bearer, api: http(apiUrl, { bearer }) };
}
