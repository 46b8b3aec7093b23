// Requests that check the same credential at the same block share their reads of the chain, while
// each still reads the chain as of its own arrival: a purchase mined before a request is seen by it.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { type CountingRpcProxy, startCountingRpcProxy } from "../support/countingRpcProxy.ts";
import { http, signIn } from "../support/http.ts";
import {
  agentDrafts,
  type ListingIds,
  listingIdsOf,
  oneTimePurchase,
  publishListings,
} from "../support/listingFixtures.ts";
import { mineBlock } from "../support/mineBlock.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true });
const PRICE = parseEther("0.01");
const creator = devAccount(5);
const renter = devAccount(6);
const draft = agentDrafts(creator, {
  seedPrefix: "shared-reads",
  category: "research",
  described: "Answers once per block",
})("shared-reads", ONE_TIME, PRICE);

let rpc: CountingRpcProxy;
let api: ReturnType<typeof http>;
const listing: ListingIds = listingIdsOf(draft);
const listingId = listing.id;
beforeAll(async () => {
  await publishListings(stack(), [draft]);
  rpc = await startCountingRpcProxy(stack().anvil.rpcUrl);
  const { url } = await stack().addApi({ RPC_URL: rpc.url });
  api = http(url, { bearer: await signIn(url, renter) });
});

describe("reads of the chain shared by requests at one block", () => {
  it("sees a purchase mined just before the request", async () => {
    expect((await api.get(`/v1/credentials/${listingId}`)).body).toMatchObject({ valid: false });
    await mineBlock(stack(), [oneTimePurchase(renter, listing, PRICE)]);
    expect((await api.get(`/v1/credentials/${listingId}`)).body).toMatchObject({ valid: true });
  });

  it("twenty requests at one block read the credential once at each tag", async () => {
    // A new block: nothing read at an older one is of use.
    await rpcRequest(stack().anvil.rpcUrl, "evm_mine");
    const methods = await rpc.methodsDuring(async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => api.get(`/v1/credentials/${listingId}`)),
      );
      for (const answer of answers) expect(answer.body).toMatchObject({ valid: true });
    });
    // Each request reads the latest block (those arriving in one turn of the loop, once together).
    const blockReads = methods.filter((method) => method === "eth_getBlockByNumber");
    expect(blockReads.length).toBeGreaterThan(0);
    expect(blockReads.length).toBeLessThanOrEqual(20);
    // Once at the latest block, and once at each of the safe and finalized ones for its finality.
    expect(methods.filter((method) => method === "eth_call")).toEqual([
      "eth_call",
      "eth_call",
      "eth_call",
    ]);
  });
});
