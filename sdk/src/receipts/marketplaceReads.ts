import { decodeFunctionResult, encodeFunctionData, hexToNumber } from "viem";
import type { Address, Hex } from "./receiptTypes.ts";

/** The two marketplace reads a receipt's verification needs. */
const RECEIPTS_ABI = [
  {
    type: "function",
    name: "receiptsSigner",
    stateMutability: "view",
    inputs: [],
    outputs: [{ name: "", type: "address" }],
  },
  {
    type: "function",
    name: "anchoredAt",
    stateMutability: "view",
    inputs: [{ name: "root", type: "bytes32" }],
    outputs: [{ name: "blockNumber", type: "uint256" }],
  },
] as const;

/**
 * The chain could not be read: no answer, an HTTP failure, an answer that is not JSON-RPC, or a node's
 * error other than a revert. Says nothing about the receipt: ask again, or ask another node.
 */
export class ChainReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What the chain at `rpcUrl` answers for the receipt checks. */
export type MarketplaceReads = {
  chainId(): Promise<number>;
  /** undefined when `contract` answers no such call (no contract there, or an older one). */
  receiptsSigner(contract: Address): Promise<Address | undefined>;
  /** The block of `root`'s anchor, 0 when never anchored; undefined as above. */
  anchoredAt(contract: Address, root: Hex): Promise<bigint | undefined>;
};

type JsonRpcAnswer = { result?: unknown; error?: { message?: unknown } };

export function marketplaceReads(
  rpcUrl: string,
  fetchWith: typeof fetch = fetch,
): MarketplaceReads {
  let id = 0;
  const call = async (method: string, params: unknown[]): Promise<JsonRpcAnswer> => {
    let response: Response;
    try {
      response = await fetchWith(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      });
    } catch (error) {
      throw new ChainReadError(`no answer from ${rpcUrl}`, { cause: error });
    }
    const answer = (await response.json().catch(() => undefined)) as JsonRpcAnswer | undefined;
    if (!response.ok || typeof answer !== "object" || answer === null) {
      throw new ChainReadError(`${rpcUrl} answered ${method} with HTTP ${response.status}`);
    }
    return answer;
  };
  const read = async (contract: Address, data: Hex): Promise<Hex | undefined> => {
    const { result, error } = await call("eth_call", [{ to: contract, data }, "latest"]);
    if (error) {
      if (/revert/i.test(String(error.message))) return undefined;
      throw new ChainReadError(`${rpcUrl} failed eth_call: ${String(error.message)}`);
    }
    // No code at `contract` answers "0x".
    return typeof result === "string" && result.length > 2 ? (result as Hex) : undefined;
  };
  return {
    async chainId() {
      const { result, error } = await call("eth_chainId", []);
      if (typeof result !== "string") {
        throw new ChainReadError(`${rpcUrl} gave no chain id: ${String(error?.message)}`);
      }
      return hexToNumber(result as Hex);
    },
    async receiptsSigner(contract) {
      const data = encodeFunctionData({ abi: RECEIPTS_ABI, functionName: "receiptsSigner" });
      const result = await read(contract, data);
      return (
        result &&
        decoded(() =>
          decodeFunctionResult({ abi: RECEIPTS_ABI, functionName: "receiptsSigner", data: result }),
        )
      );
    },
    async anchoredAt(contract, root) {
      const data = encodeFunctionData({
        abi: RECEIPTS_ABI,
        functionName: "anchoredAt",
        args: [root],
      });
      const result = await read(contract, data);
      return (
        result &&
        decoded(() =>
          decodeFunctionResult({ abi: RECEIPTS_ABI, functionName: "anchoredAt", data: result }),
        )
      );
    },
  };
}

function decoded<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch {
    return undefined;
  }
}
