import { parseEther } from "viem";
import { describe, expect, it } from "vitest";
import { PER_QUERY } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { createApiKey, http, signIn } from "../support/http.ts";
import { REGISTRATION_STACK, registerAgent, settledJob } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const creator = devAccount(4);
const renter = devAccount(5);
// Search and listings come from the indexer.
const stack = useStack({ ...REGISTRATION_STACK, ponder: true });

const manifest = {
  name: "tax-summariser",
  title: "Tax Return Summariser",
  category: "finance",
  description: "Turns a year of statements into a one-page summary of deductible expenses",
  model: { provider: "anthropic", model: "claude-sonnet-4" },
  system_prompt: "You are a careful tax assistant. SECRET-PROMPT-7f3a",
  input_schema: { type: "object", properties: { statements: { type: "string" } } },
  output_schema: { type: "string" },
  sample_output: ["Deductible: 4,210 USD across 37 receipts."],
  creator_display_name: "Ledger & Co",
};

describe("registering an agent end to end (API, NATS, worker process, chain, indexer)", () => {
  it("registers, lists on-chain with the job's seed and URI, and appears in search", async () => {
    const apiUrl = () => stack().api.url;
    const asCreator = http(apiUrl, { bearer: await signIn(apiUrl(), creator) });
    const jobId = await registerAgent(asCreator, {
      ...manifest,
      vendor_credentials: { api_key: "sk-vendor-SECRET" },
    });

    const job = await settledJob(asCreator, jobId);
    expect(job.body).toEqual({
      job_id: jobId,
      status: "completed",
      result: {
        agent_id: expect.stringMatching(/^tax-summariser-[0-9a-f]{8}$/),
        listing_id: expect.stringMatching(/^lst_[0-9a-f]{64}$/),
        create_listing: {
          seed: expect.stringMatching(/^0x[0-9a-f]{64}$/),
          metadata_uri: expect.stringMatching(/^ipfs:\/\/bafkrei[a-z2-7]{52}$/),
          on_chain_listing_id: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        },
      },
    });
    const { listing_id: listingId, create_listing: onChain } = job.body.result;

    const { marketplace } = stack();
    const market = marketplace.as(creator);
    const receipt = await marketplace.mined(
      market.write.createListing([
        onChain.seed,
        PER_QUERY,
        parseEther("0.001"),
        onChain.metadata_uri,
      ]),
    );
    expect(await market.read.deriveListingId([creator.address, onChain.seed])).toBe(
      onChain.on_chain_listing_id,
    );
    await stack().ponder.waitForBlock(receipt.blockNumber);

    const asRenter = http(apiUrl, { bearer: (await createApiKey(apiUrl(), renter)).key });
    const search = await asRenter.get("/v1/listings?q=deductible");
    expect(search.body.total).toBe(1);
    const block = await marketplace.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    const publishedAt = new Date(Number(block.timestamp) * 1000).toISOString();
    expect(search.body.listings[0]).toEqual({
      id: listingId,
      title: "Tax Return Summariser",
      description: manifest.description,
      category: ["finance"],
      rental_model: "per_query",
      price_eth: 0.001,
      run_count: 0,
      success_rate: 0,
      creator: { id: creator.address.toLowerCase(), display_name: "Ledger & Co", listing_count: 1 },
      rating: 0,
      review_count: 0,
      last_updated: publishedAt,
      sample_output: manifest.sample_output,
    });
    const detail = await asRenter.get(`/v1/listings/${listingId}`);
    expect(detail.body).toMatchObject({
      id: listingId,
      published_at: publishedAt,
      status: "active",
      on_chain_id: onChain.on_chain_listing_id,
      metadata_uri: onChain.metadata_uri,
    });

    const cid = onChain.metadata_uri.slice("ipfs://".length);
    const published = await asRenter.get(`/v1/manifests/${cid}`);
    expect(published.body).toMatchObject({ name: "tax-summariser", kind: "declarative" });
    const publicManifest = JSON.stringify(published.body);
    expect(publicManifest).not.toContain("SECRET-PROMPT");
    expect(publicManifest).not.toContain("sk-vendor");
  });
});
