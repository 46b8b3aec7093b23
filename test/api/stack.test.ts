import { parseEther } from "viem";
import { describe, expect, it } from "vitest";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { createApiKey, http } from "../support/http.ts";
import { useStack } from "../support/useStack.ts";

const creator = devAccount(2);
const renter = devAccount(3);
const stack = useStack({ api: 1 });

describe("the API over HTTP against the whole stack", () => {
  it("lists a published agent and confirms a purchase on-chain", async () => {
    const [onChainId, { key }] = await Promise.all([
      stack().publishListing({
        creator,
        seed: "stack",
        model: ONE_TIME,
        price: parseEther("0.02"),
        manifest: {
          name: "contract-auditor",
          category: "coding",
          description: "Reviews Solidity for reentrancy and access control bugs",
          sample_output: ["No critical findings."],
          creator_display_name: "Audit Labs",
        },
      }),
      createApiKey(stack().api.url, renter),
    ]);
    const api = http(stack().api.url, { bearer: key });

    const search = await api.get("/v1/listings?q=solidity");
    expect(search.status).toBe(200);
    expect(search.body.total).toBe(1);
    expect(search.body.listings[0]).toMatchObject({
      id: toApiListingId(onChainId),
      title: "Contract Auditor",
      price_eth: 0.02,
      creator: { id: creator.address.toLowerCase(), display_name: "Audit Labs", listing_count: 1 },
    });

    const before = await api.get(`/v1/credentials/${toApiListingId(onChainId)}`);
    expect(before.body).toEqual({
      listing_id: toApiListingId(onChainId),
      valid: false,
      status: "not_found",
      on_chain_verified: false,
    });

    await stack().marketplace.mined(
      stack()
        .marketplace.as(renter)
        .write.purchaseOneTime([onChainId], { value: parseEther("0.02") }),
    );
    const after = await api.get(`/v1/credentials/${toApiListingId(onChainId)}`);
    expect(after.body).toEqual({
      listing_id: toApiListingId(onChainId),
      rental_model: "one_time",
      status: "active",
      valid: true,
      // Bought in the latest block: not yet at the safe one, 32 blocks behind on anvil.
      finality: "latest",
      on_chain_listing_id: onChainId,
      on_chain_verified: true,
    });
  });
});
