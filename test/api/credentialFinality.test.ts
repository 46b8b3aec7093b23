// GET /v1/credentials/:listing_id's `finality` over HTTP against the whole stack, with anvil's safe
// block 2 blocks behind its latest and its finalized block 4 behind (`--slots-in-an-epoch 2`): a
// valid credential moves from `latest` to `safe` to `finalized` as blocks are mined over it (from a
// chain so young that its finalized block predates the marketplace); it is `finalized` only while
// the safe block holds it valid too; an answer that is not valid has none.
// What it costs: two reads more for a valid answer, shared by the requests at one block, none for one
// that is not valid; a node that does not answer at those tags is the usual 503 within the read's
// deadline.
//
// Each step mines one block, then waits for two credentials' answers to become the step's. Every
// step's pair differs from the step before's, so a pair read at an older head never passes.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAIN_READ_DEADLINE_MS } from "../../api/limits.ts";
import { ONE_TIME, PER_QUERY } from "../../devStack/marketplace.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { checkedHttp } from "../support/checkedHttp.ts";
import { expectError, http } from "../support/http.ts";
import { createKeysByLabel } from "../support/keysByLabel.ts";
import {
  agentDrafts,
  type ListingIds,
  listingIdsOf,
  oneTimePurchase,
  perTaskDeposit,
  publishListings,
} from "../support/listingFixtures.ts";
import { mineBlock, transaction } from "../support/mineBlock.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const SLOTS_IN_AN_EPOCH = 2;
const PRICE = parseEther("0.01");
const TASK_PRICE = parseEther("0.001");
/** The API hears of a new block within milliseconds: a step not seen in this long is not coming. */
const STEP_MS = 10_000;

const authority = devAccount(0);
const creator = devAccount(2);
const early = devAccount(3); // buys a block before `late`
const late = devAccount(4);
const topped = devAccount(5); // a per-task balance spent to nothing, then topped up
const companion = devAccount(6); // buys as `topped`'s balance is spent
const newcomer = devAccount(7); // holds nothing

// The probes below ask many times a second.
const stack = useStack({ api: 1, slotsInAnEpoch: SLOTS_IN_AN_EPOCH, rateLimitPerMinute: 100_000 });
const api = checkedHttp(() => stack().api.url);
let keys: Record<"early" | "late" | "topped" | "companion" | "newcomer", string>;

const draft = agentDrafts(creator, {
  seedPrefix: "finality",
  category: "research",
  described: "for the finality tests",
});
const drafts = {
  oneTime: draft("finality-one-time", ONE_TIME, PRICE),
  perTask: draft("finality-per-task", PER_QUERY, TASK_PRICE),
};
const oneTime = listingIdsOf(drafts.oneTime);
const perTask = listingIdsOf(drafts.perTask);

beforeAll(async () => {
  [keys] = await Promise.all([
    createKeysByLabel(stack().api.url, { early, late, topped, companion, newcomer }),
    publishListings(stack(), Object.values(drafts)),
  ]);
}, 120_000);

const verify = async (listing: ListingIds, key: string) =>
  (await api.get(`/v1/credentials/${listing.id}`, { bearer: key })).body;

const mineEmptyBlock = () => rpcRequest(stack().anvil.rpcUrl, "evm_mine");

/** Waits until the credentials of `who`, in order, answer with `finalities`. */
function untilFinalities(who: [ListingIds, string][], finalities: string[]) {
  return until(
    `finalities ${finalities.join(", ")}`,
    async () => {
      const answers = await Promise.all(who.map(([listing, key]) => verify(listing, key)));
      return answers.every((answer, n) => answer.finality === finalities[n]) && answers;
    },
    STEP_MS,
  );
}

describe("finality", () => {
  it("moves from latest to safe to finalized as blocks are mined over the credential", async () => {
    await mineBlock(stack(), [oneTimePurchase(early, oneTime, PRICE)]);
    await mineBlock(stack(), [oneTimePurchase(late, oneTime, PRICE)]);
    const both: [ListingIds, string][] = [
      [oneTime, keys.early],
      [oneTime, keys.late],
    ];
    const [first] = await untilFinalities(both, ["latest", "latest"]);
    expect(first).toEqual({
      listing_id: oneTime.id,
      rental_model: "one_time",
      status: "active",
      valid: true,
      finality: "latest",
      on_chain_listing_id: oneTime.onChainId,
      on_chain_verified: true,
    });
    // From the head at `late`'s block (L): safe is the head less 2, finalized the head less 4.
    for (const step of [
      ["safe", "latest"], // L + 1: `early`'s block is the safe block
      ["safe", "safe"], // L + 2
      ["finalized", "safe"], // L + 3: `early`'s block is the finalized block
      ["finalized", "finalized"], // L + 4
    ]) {
      await mineEmptyBlock();
      await untilFinalities(both, step);
    }
  });

  it("is finalized only while the safe block holds the credential valid too", async () => {
    // D: one task's deposit; D + 2: spent, as `companion` buys; D + 3: topped up.
    await mineBlock(stack(), [perTaskDeposit(topped, perTask, TASK_PRICE, 1n)]);
    await mineEmptyBlock();
    await mineBlock(stack(), [
      transaction(authority, (market) =>
        market.write.consumeQuery([perTask.onChainId, topped.address, 1n, TASK_PRICE, true]),
      ),
      oneTimePurchase(companion, oneTime, PRICE),
    ]);
    await mineBlock(stack(), [
      transaction(topped, (market) =>
        market.write.topUpBalance([perTask.onChainId, TASK_PRICE], { value: TASK_PRICE }),
      ),
    ]);
    const both: [ListingIds, string][] = [
      [perTask, keys.topped],
      [oneTime, keys.companion],
    ];
    await untilFinalities(both, ["safe", "latest"]); // D + 3: the safe block (D + 1) holds the deposit
    for (const step of [
      // D + 4: the finalized block (D) holds the deposit, but the safe block (D + 2) the spent balance.
      ["latest", "safe"],
      ["finalized", "safe"], // D + 5: both hold a balance
      ["safe", "finalized"], // D + 6: the finalized block (D + 2) holds the spent balance
      ["finalized", "finalized"], // D + 7
    ]) {
      await mineEmptyBlock();
      await untilFinalities(both, step);
    }
  });

  it("is absent when the credential is not valid, though the finalized block still holds it", async () => {
    await mineBlock(stack(), [
      transaction(creator, (market) =>
        market.write.revokeAccess([oneTime.onChainId, late.address]),
      ),
    ]);
    const revoked = await until("the revocation", async () => {
      const answer = await verify(oneTime, keys.late);
      return answer.valid === false && answer;
    });
    expect(revoked).toEqual({
      listing_id: oneTime.id,
      rental_model: "one_time",
      status: "revoked",
      valid: false,
      on_chain_listing_id: oneTime.onChainId,
      on_chain_verified: true,
    });
    expect(await verify(oneTime, keys.newcomer)).toEqual({
      listing_id: oneTime.id,
      valid: false,
      status: "not_found",
      on_chain_verified: false,
    });
  });
});

describe("what finality costs the node", () => {
  let proxy: Awaited<ReturnType<typeof startTagProxy>>;
  let direct: ReturnType<typeof http>;

  beforeAll(async () => {
    proxy = await startTagProxy(stack().anvil.rpcUrl);
    // Through the proxy, which takes no WebSocket: each request reads the latest block itself.
    const { url } = await stack().addApi({ RPC_URL: proxy.url });
    direct = http(url);
  });
  afterAll(() => proxy?.close());

  const verifyThroughProxy = (key: string) =>
    direct.get(`/v1/credentials/${oneTime.id}`, { bearer: key });

  it("is two reads more for a valid answer, shared by requests at one block, and none for one not valid", async () => {
    // A new block: nothing read at an older one is of use.
    await mineEmptyBlock();
    const valid = await proxy.callsDuring(async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => verifyThroughProxy(keys.early)),
      );
      for (const answer of answers) expect(answer.body).toMatchObject({ finality: "finalized" });
    });
    expect(valid.sort()).toEqual(["block number", "finalized", "safe"]);

    const notValid = await proxy.callsDuring(async () => {
      expect((await verifyThroughProxy(keys.late)).body).toMatchObject({ valid: false });
    });
    expect(notValid).toEqual(["block number"]);
  });

  it("answers 503 within the read's deadline when the node does not answer at the safe and finalized blocks", async () => {
    await mineEmptyBlock();
    proxy.holdSettledReads(true);
    try {
      const sentAt = performance.now();
      const reply = await verifyThroughProxy(keys.early);
      const tookMs = performance.now() - sentAt;
      expectError(reply, 503, "service_unavailable");
      expect(tookMs).toBeGreaterThanOrEqual(CHAIN_READ_DEADLINE_MS);
      expect(tookMs).toBeLessThan(CHAIN_READ_DEADLINE_MS + 1_000);
    } finally {
      proxy.holdSettledReads(false);
    }
    expect((await verifyThroughProxy(keys.early)).body).toMatchObject({ finality: "finalized" });
  });
});

/**
 * A JSON-RPC proxy in front of the chain that notes where each `eth_call` reads (`block number`,
 * `safe` or `finalized`) and can leave those at `safe` and `finalized` unanswered: a node that takes
 * them and never answers. It takes no WebSocket.
 */
async function startTagProxy(rpcUrl: string) {
  const calls: string[] = [];
  let holding = false;
  const server = createServer(async (request, response) => {
    // JSON-RPC over HTTP only: the API's WebSocket for the chain's heads is refused.
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const call = JSON.parse(body) as { method: string; params?: unknown[] };
    if (call.method === "eth_call") {
      const at = String(call.params?.[1]);
      calls.push(at.startsWith("0x") ? "block number" : at);
      if (holding && (at === "safe" || at === "finalized")) return;
    }
    const upstream = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    response
      .writeHead(upstream.status, { "content-type": "application/json" })
      .end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Where the `eth_call`s asked while `during` runs read, in the order asked. */
    async callsDuring(during: () => Promise<unknown>): Promise<string[]> {
      const start = calls.length;
      await during();
      return calls.slice(start);
    },
    holdSettledReads(hold: boolean) {
      holding = hold;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
