// Signing in costs the chain only what the wallet needs: an ordinary account's signature is checked
// without it, a contract wallet's with one look at its code and one ERC-1271 call, and an ERC-6492
// signature (which would have us simulate deploying code the caller chose) with nothing at all. The
// API process reads the chain through a proxy that counts each JSON-RPC method asked.
import { decodeJwt } from "jose";
import {
  type Address,
  encodeFunctionData,
  type Hex,
  parseAbi,
  serializeErc6492Signature,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { type CountingRpcProxy, startCountingRpcProxy } from "../support/countingRpcProxy.ts";
import { deployErc1271Wallet, signForWallet } from "../support/erc1271Wallet.ts";
import { expectError, http } from "../support/http.ts";
import { useStack } from "../support/useStack.ts";

const owner = devAccount(7);
const stranger = devAccount(8);
const alice = devAccount(4);

const stack = useStack({ chain: true, postgres: true, ponder: false });
let rpc: CountingRpcProxy;
let api: ReturnType<typeof http>;
let wallet: Address;

beforeAll(async () => {
  rpc = await startCountingRpcProxy(stack().anvil.rpcUrl);
  api = http((await stack().addApi({ RPC_URL: rpc.url })).url);
  wallet = await deployErc1271Wallet(stack(), owner);
});

afterAll(async () => {
  await rpc?.close();
});

async function challengeFor(address: Address): Promise<string> {
  const reply = await api.get(`/v1/auth/challenge?wallet=${address}`);
  expect(reply.status).toBe(200);
  return reply.body.challenge;
}

/** A counterfactual signature: "deploy this wallet through this factory, then ask it". */
function erc6492Signature(address: Address, inner: Hex): Hex {
  return serializeErc6492Signature({
    address,
    data: encodeFunctionData({
      abi: parseAbi(["function deploy(bytes32 salt) returns (address)"]),
      args: [`0x${"11".repeat(32)}`],
    }),
    signature: inner,
  });
}

describe("finding: signature checks without free RPC work", () => {
  it("signs in a smart contract wallet through ERC-1271: its code, then its answer", async () => {
    const challenge = await challengeFor(wallet);
    const signature = await signForWallet(owner, challenge);
    let reply: Awaited<ReturnType<typeof api.post>> | undefined;
    const methods = await rpc.methodsDuring(async () => {
      reply = await api.post("/v1/auth/token", { wallet, challenge, signature });
    });
    expect(reply?.status).toBe(200);
    expect(decodeJwt(reply?.body.token).sub).toBe(wallet.toLowerCase());
    expect(methods).toEqual(["eth_getCode", "eth_call"]);
    expect((await api.get("/v1/api-keys", { bearer: reply?.body.token })).status).toBe(200);

    // Signed by a key that is not the owner's, the wallet says no: 401.
    const other = await challengeFor(wallet);
    const refused = await api.post("/v1/auth/token", {
      wallet,
      challenge: other,
      signature: await signForWallet(stranger, other),
    });
    expectError(refused, 401, "invalid_signature");
  });

  it("refuses an ERC-6492 signature with 401 without asking the chain anything", async () => {
    const undeployed = stranger.address;
    for (const address of [undeployed, wallet]) {
      const challenge = await challengeFor(address);
      const inner = await signForWallet(owner, challenge);
      const hostile = erc6492Signature(wallet, inner);
      expect(hostile.endsWith("6492".repeat(16))).toBe(true);
      const methods = await rpc.methodsDuring(async () => {
        expectError(
          await api.post("/v1/auth/token", { wallet: address, challenge, signature: hostile }),
          401,
          "invalid_signature",
        );
      });
      expect({ address, methods }).toEqual({ address, methods: [] });
    }
  });

  it("asks only for the code of an ordinary account whose signature fails, and nothing when it holds", async () => {
    const challenge = await challengeFor(alice.address);
    const wrong = await stranger.signMessage({ message: challenge });
    const refusedMethods = await rpc.methodsDuring(async () => {
      expectError(
        await api.post("/v1/auth/token", { wallet: alice.address, challenge, signature: wrong }),
        401,
        "invalid_signature",
      );
    });
    expect(refusedMethods).toEqual(["eth_getCode"]);

    const signature = await alice.signMessage({ message: challenge });
    const acceptedMethods = await rpc.methodsDuring(async () => {
      const reply = await api.post("/v1/auth/token", {
        wallet: alice.address,
        challenge,
        signature,
      });
      expect(reply.status).toBe(200);
    });
    expect(acceptedMethods).toEqual([]);
  });

  it("refuses a contract that reverts or burns its gas with 401, after one capped call", async () => {
    const reverts = "0x60006000fd"; // revert(0, 0)
    const loops = "0x5b600056"; // jump back to the start until the gas runs out
    for (const [index, code] of [reverts, loops].entries()) {
      const address = devAccount(30 + index).address;
      await rpcRequest(stack().anvil.rpcUrl, "anvil_setCode", [address, code]);
      const challenge = await challengeFor(address);
      const signature = await signForWallet(owner, challenge);
      const methods = await rpc.methodsDuring(async () => {
        expectError(
          await api.post("/v1/auth/token", { wallet: address, challenge, signature }),
          401,
          "invalid_signature",
        );
      });
      expect({ code, methods }).toEqual({ code, methods: ["eth_getCode", "eth_call"] });
    }
  });

  it("answers 503 service_unavailable when the chain fails during the ERC-1271 call, and spends no challenge", async () => {
    const challenge = await challengeFor(wallet);
    const body = { wallet, challenge, signature: await signForWallet(owner, challenge) };
    rpc.fail("eth_call");
    try {
      expectError(await api.post("/v1/auth/token", body), 503, "service_unavailable");
    } finally {
      rpc.restore();
    }
    expect((await api.post("/v1/auth/token", body)).status).toBe(200);
  });
});
