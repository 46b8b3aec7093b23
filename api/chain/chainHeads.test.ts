// The chain's newest block as anvil announces it over a WebSocket: credential checks learn the latest
// block without a read of their own, never refuse a credential bought in a block not yet announced,
// and fall back to reading the chain when no announcement can be trusted.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseEther } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { createLogger } from "../../lib/log.ts";
import { newListing, newWallet } from "../../test/settlement/settlementFixtures.ts";
import { startCountingRpcProxy } from "../../test/support/countingRpcProxy.ts";
import { until } from "../../test/support/registration.ts";
import { useStack } from "../../test/support/useStack.ts";
import { readChainTime } from "../credentials/readChainTime.ts";
import { verifyCredential } from "../credentials/verifyCredential.ts";
import { CHAIN_HEAD_ALIVE_MS, CHAIN_HEAD_PING_MS } from "../limits.ts";
import { type ChainHeads, type ChainTime, watchChainHeads, webSocketUrlOf } from "./chainHeads.ts";
import { createChainReader } from "./chainReader.ts";

const stack = useStack({ chain: true });
const log = createLogger("test", () => {});
const watched: ChainHeads[] = [];
afterAll(() => {
  for (const heads of watched) heads.close();
});

function watch(url: string): ChainHeads {
  const heads = watchChainHeads(url, log);
  watched.push(heads);
  return heads;
}

async function latestBlock(): Promise<ChainTime> {
  const block = await stack().marketplace.publicClient.getBlock({ blockTag: "latest" });
  return { number: block.number, timestamp: block.timestamp };
}

describe("the chain's heads, as the node announces them", () => {
  it("follow every new block, and spare each check its read of the latest block", async () => {
    const heads = watch(webSocketUrlOf(stack().anvil.rpcUrl));
    expect(await until("the first head", () => heads.latest())).toEqual(await latestBlock());
    await rpcRequest(stack().anvil.rpcUrl, "anvil_mine", ["0x1"]);
    const mined = await latestBlock();
    expect(await until("the mined head", () => heads.latest()?.number === mined.number)).toBe(true);
    expect(heads.latest()).toEqual(mined);

    const proxy = await startCountingRpcProxy(stack().anvil.rpcUrl);
    const reader = createChainReader(proxy.url, heads);
    const methods = await proxy.methodsDuring(async () => {
      for (let i = 0; i < 50; i++) expect(await readChainTime(reader)).toEqual(mined);
    });
    expect(methods).toEqual([]);
    await proxy.close();
  });

  it("never refuse a credential bought in a block not yet announced", async () => {
    const { listingId, price } = await newListing(stack(), "one_time", parseEther("0.001"));
    const renter = await newWallet(stack());
    const before = await latestBlock();
    await stack().marketplace.mined(
      stack().marketplace.as(renter).write.purchaseOneTime([listingId], { value: price }),
    );
    // A node that has not yet announced the purchase's block.
    const behind: ChainHeads = { latest: () => before, close: () => {} };
    const proxy = await startCountingRpcProxy(stack().anvil.rpcUrl);
    const reader = createChainReader(proxy.url, behind);
    const subject = { onChainListingId: listingId, wallet: renter.address };
    let check: Awaited<ReturnType<typeof verifyCredential>> | undefined;
    const methods = await proxy.methodsDuring(async () => {
      check = await verifyCredential(reader, stack().deployment.address, subject);
    });
    expect(check).toMatchObject({ found: true, status: "active" });
    // Read at the announced head, then confirmed at the latest block.
    expect(methods).toEqual(["eth_call", "eth_getBlockByNumber", "eth_call"]);
    // An answer that grants access stands at the head once it is announced.
    const purchaseBlock = await latestBlock();
    const announced: ChainHeads = { latest: () => purchaseBlock, close: () => {} };
    const confirmed = await proxy.methodsDuring(async () => {
      check = await verifyCredential(
        createChainReader(proxy.url, announced),
        stack().deployment.address,
        subject,
      );
    });
    expect(check).toMatchObject({ found: true, status: "active" });
    expect(confirmed).toEqual(["eth_call"]);
    await proxy.close();
  });

  it("are not trusted from a node with no WebSocket, nor from one gone silent", async () => {
    const plain = createServer((_, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const port = (plain.address() as AddressInfo).port;
    const none = watch(`ws://127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, CHAIN_HEAD_PING_MS * 2));
    expect(none.latest()).toBeUndefined();
    plain.close();

    const heads = watch(webSocketUrlOf(stack().anvil.rpcUrl));
    await until("the first head", () => heads.latest());
    stack().anvil.kill("SIGSTOP");
    try {
      const frozenAt = performance.now();
      await until("the head to lapse", () => heads.latest() === undefined, 5_000);
      expect(performance.now() - frozenAt).toBeLessThan(CHAIN_HEAD_ALIVE_MS + 500);
    } finally {
      stack().anvil.kill("SIGCONT");
    }
    expect(await until("the head to return", () => heads.latest(), 5_000)).toEqual(
      await latestBlock(),
    );
  });
});
