// Signed execution receipts, anchored on-chain in batches: a task run on a connected agent and one on
// a declarative agent each get a receipt from GET /v1/runs/:run_id/receipt, which the SDK's
// `verifyReceipt` accepts against the chain, and so does a verifier written here from the documented
// domain, struct and tree (docs/receipts.md) with viem alone. One field changed, both refuse it.
import {
  concat,
  type Hex,
  hashStruct,
  hexToBigInt,
  keccak256,
  parseEther,
  recoverTypedDataAddress,
  sha256,
  stringToBytes,
  zeroHash,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { verifyReceipt } from "../../sdk/src/index.ts";
import {
  RECEIPT_TYPES,
  type ReceiptDocument,
  receiptDomain,
  receiptMessage,
} from "../../sdk/src/receipts/receiptTypes.ts";
import { anchoredReceipt } from "../support/anchoredReceipt.ts";
import { type BehavingAgent, behaving, startBehavingAgent } from "../support/behavingAgent.ts";
import {
  listPerTaskAgent,
  type PerTaskListing,
  perTaskRenter,
  type Renter,
} from "../support/connectedListing.ts";
import { type DeclarativeListing, listDeclarativeAgent } from "../support/declarativeOnStack.ts";
import { useStack } from "../support/useStack.ts";

const PRICE = parseEther("0.001");
const stack = useStack({ api: 0, ponder: true, rateLimitPerMinute: 10_000 });
let agent: BehavingAgent;
let servers: ModelServers;
let connected: PerTaskListing;
let declarative: DeclarativeListing;
let connectedRenter: Renter;
let declarativeRenter: Renter;

beforeAll(async () => {
  agent = await startBehavingAgent(await ensureDevCertificates(stack().dir));
  servers = await startModelServers(stack());
  await stack().addApi(servers.env);
  connected = await listPerTaskAgent(stack(), agent, { name: "receipted-agent", price: PRICE });
  declarative = await listDeclarativeAgent(stack(), servers, {
    name: "receipted-brief",
    provider: "openai",
    price: PRICE,
  });
  connectedRenter = await perTaskRenter(stack(), connected, 20n * PRICE);
  declarativeRenter = await perTaskRenter(stack(), declarative, 5n * PRICE);
});
afterAll(async () => {
  await agent?.close();
  await servers?.stop();
});

const digest = (text: string) => sha256(stringToBytes(text));
const sortedPair = (a: Hex, b: Hex) =>
  keccak256(hexToBigInt(a) < hexToBigInt(b) ? concat([a, b]) : concat([b, a]));

/**
 * A verifier of its own, from docs/receipts.md: the struct, the domain, the signer and the root as
 * the contract holds them, the proof folded with sorted-pair keccak.
 */
async function independentlyValid(document: ReceiptDocument): Promise<boolean> {
  const { receipt, anchor } = document;
  if (!anchor) return false;
  const types = {
    Receipt: [
      { name: "runId", type: "string" },
      { name: "listingId", type: "bytes32" },
      { name: "renter", type: "address" },
      { name: "manifestCid", type: "string" },
      { name: "vendor", type: "string" },
      { name: "model", type: "string" },
      { name: "endpointSha256", type: "bytes32" },
      { name: "taskSha256", type: "bytes32" },
      { name: "inputSha256", type: "bytes32" },
      { name: "outputSha256", type: "bytes32" },
      { name: "inputTokens", type: "uint64" },
      { name: "outputTokens", type: "uint64" },
      { name: "startedAtMs", type: "uint64" },
      { name: "finishedAtMs", type: "uint64" },
      { name: "status", type: "string" },
      { name: "costWei", type: "uint256" },
    ],
  } as const;
  const message = {
    runId: receipt.run_id,
    listingId: receipt.listing_id,
    renter: receipt.renter,
    manifestCid: receipt.manifest_cid,
    vendor: receipt.vendor,
    model: receipt.model,
    endpointSha256: receipt.endpoint_sha256,
    taskSha256: receipt.task_sha256,
    inputSha256: receipt.input_sha256,
    outputSha256: receipt.output_sha256,
    inputTokens: BigInt(receipt.input_tokens ?? 0),
    outputTokens: BigInt(receipt.output_tokens ?? 0),
    startedAtMs: BigInt(receipt.started_at_ms ?? 0),
    finishedAtMs: BigInt(receipt.finished_at_ms),
    status: receipt.status,
    costWei: BigInt(receipt.cost_wei),
  };
  const { publicClient } = stack().marketplace;
  const address = stack().deployment.address;
  const read = <F extends "receiptsSigner" | "anchoredAt">(functionName: F, args: readonly Hex[]) =>
    publicClient.readContract({ address, abi: serviceMarketplaceAbi, functionName, args } as never);
  const domain = {
    name: "ServiceMarketplace Receipts",
    version: "1",
    chainId: await publicClient.getChainId(),
    verifyingContract: address,
  } as const;
  const signer = await recoverTypedDataAddress({
    domain,
    types,
    primaryType: "Receipt",
    message,
    signature: document.signature,
  });
  const leaf = hashStruct({ data: message, primaryType: "Receipt", types });
  const root = anchor.proof.reduce<Hex>((node, sibling) => sortedPair(node, sibling), leaf);
  const [expectedSigner, anchoredAt] = await Promise.all([
    read("receiptsSigner", []),
    read("anchoredAt", [anchor.root]),
  ]);
  return (
    signer.toLowerCase() === String(expectedSigner).toLowerCase() &&
    root === anchor.root &&
    anchoredAt === BigInt(anchor.block) &&
    anchoredAt > 0n
  );
}

const verifyOptions = () => ({
  rpcUrl: stack().anvil.rpcUrl,
  contract: stack().deployment.address,
});

describe("a run's receipt", () => {
  it("of a connected agent says what ran, on what, for what, and the chain and both verifiers agree", async () => {
    const task = behaving({ output: { summary: "verified" } });
    const input = { b: 2, a: [1, "é"] };
    const answer = await connectedRenter.api.post("/v1/execute", {
      agent_id: connected.agentId,
      task,
      input,
    });
    expect(answer.status).toBe(200);
    const run = answer.body as { run_id: string; output: unknown; cost_wei: number };
    expect(run.cost_wei).toBe(Number(PRICE));

    const document = await anchoredReceipt(connectedRenter.api, run.run_id);
    const { receipt } = document;
    expect(receipt).toMatchObject({
      run_id: run.run_id,
      listing_id: connected.listingId.toLowerCase(),
      renter: connectedRenter.account.address.toLowerCase(),
      vendor: "",
      model: "",
      input_tokens: null,
      output_tokens: null,
      endpoint_sha256: digest(agent.url("/agents/receipted-agent")),
      task_sha256: digest(JSON.stringify(task)),
      // Canonical JSON: keys sorted, whatever order they were sent in.
      input_sha256: digest('{"a":[1,"é"],"b":2}'),
      output_sha256: digest('{"summary":"verified"}'),
      status: "completed",
      cost_wei: PRICE.toString(),
    });
    expect(receipt.manifest_cid).toMatch(/^b[a-z2-7]{20,}$/);
    expect(receipt.finished_at_ms).toBeGreaterThanOrEqual(receipt.started_at_ms ?? Infinity);

    expect(await verifyReceipt(document, verifyOptions())).toMatchObject({
      valid: true,
      signature: true,
      inclusion: true,
      anchored: true,
    });
    expect(await independentlyValid(document)).toBe(true);
    // The same document every time: the signature is deterministic, the anchor final.
    expect((await connectedRenter.api.get(`/v1/runs/${run.run_id}/receipt`)).body).toEqual(
      document,
    );
  });

  it("of a declarative agent names its vendor and model, and a changed field fails both verifiers", async () => {
    const answer = await declarativeRenter.api.post("/v1/execute", {
      agent_id: declarative.agentId,
      task: "Write one line",
      input: { topic: "receipts" },
    });
    expect(answer.status).toBe(200);
    const run = answer.body as { run_id: string; output: unknown };
    const document = await anchoredReceipt(declarativeRenter.api, run.run_id);
    expect(document.receipt).toMatchObject({
      vendor: "openai",
      model: declarative.model,
      endpoint_sha256: zeroHash,
      output_sha256: digest(JSON.stringify(run.output)),
      cost_wei: PRICE.toString(),
    });
    // As the vendor counted them for the run's turns; a connected agent reports none.
    expect(document.receipt.input_tokens).toBeGreaterThan(0);
    expect(document.receipt.output_tokens).toBeGreaterThan(0);
    expect((await verifyReceipt(document, verifyOptions())).valid).toBe(true);
    expect(await independentlyValid(document)).toBe(true);

    for (const tampered of [
      { ...document.receipt, cost_wei: "1" },
      { ...document.receipt, output_sha256: digest("something else") },
      { ...document.receipt, renter: connectedRenter.account.address.toLowerCase() as Hex },
    ]) {
      const forged = { ...document, receipt: tampered };
      expect((await verifyReceipt(forged, verifyOptions())).valid).toBe(false);
      expect(await independentlyValid(forged)).toBe(false);
    }
    // Signed by a key the contract does not name: refused, however well formed.
    const forger = privateKeyToAccount(generatePrivateKey());
    const forged = {
      ...document,
      signature: await forger.signTypedData({
        domain: receiptDomain(document.chain_id, document.contract),
        types: RECEIPT_TYPES,
        primaryType: "Receipt",
        message: receiptMessage(document.receipt),
      }),
    };
    expect(await verifyReceipt(forged, verifyOptions())).toMatchObject({
      valid: false,
      signature: false,
      inclusion: true,
    });
    expect(await independentlyValid(forged)).toBe(false);
  });

  it("of runs anchored together each prove their place in the one root", async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        connectedRenter.api.post("/v1/execute", {
          agent_id: connected.agentId,
          task: behaving({ output: { summary: `run ${index}` } }),
        }),
      ),
    );
    const documents = await Promise.all(
      answers.map((answer) => {
        expect(answer.status).toBe(200);
        return anchoredReceipt(connectedRenter.api, (answer.body as { run_id: string }).run_id);
      }),
    );
    const roots = new Map<Hex, number>();
    for (const document of documents) {
      const root = document.anchor?.root as Hex;
      roots.set(root, (roots.get(root) ?? 0) + 1);
      expect((await verifyReceipt(document, verifyOptions())).valid).toBe(true);
      expect(await independentlyValid(document)).toBe(true);
    }
    // Runs debited together are anchored together: some root holds several receipts.
    expect(Math.max(...roots.values())).toBeGreaterThan(1);
    expect(
      Math.max(...documents.map((document) => document.anchor?.proof.length ?? 0)),
    ).toBeGreaterThan(0);
  });

  it("is no one else's, and none before the run is over", async () => {
    const answer = await connectedRenter.api.post("/v1/runs", {
      agent_id: connected.agentId,
      task: behaving({ delayMs: 1_500 }),
    });
    expect(answer.status).toBe(202);
    const { run_id } = answer.body as { run_id: string };
    const early = await connectedRenter.api.get(`/v1/runs/${run_id}/receipt`);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: { code: "receipt_pending", status: 409 } });
    const stranger = await declarativeRenter.api.get(`/v1/runs/${run_id}/receipt`);
    expect(stranger.status).toBe(404);
    expect(stranger.body).toMatchObject({ error: { code: "run_not_found" } });
    expect((await connectedRenter.api.get("/v1/runs/run_nope/receipt")).status).toBe(404);
  });
});
