// Drives the deployed marketplace from tests: typed contract handles per account, mined receipts.
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getContract,
  type Hex,
  http,
  keccak256,
  toHex,
} from "viem";
import type { HDAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { expect } from "vitest";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";

export const ONE_TIME = 0;
export const SUBSCRIPTION = 1;
export const PER_QUERY = 2;
export const THIRTY_DAYS = 30n * 24n * 60n * 60n;
export const METADATA_URI = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";

export function seedOf(text: string): Hex {
  return keccak256(toHex(text));
}

export function connectMarketplace(rpcUrl: string, address: Address) {
  // No block-number cache: tests compare against the head right after mining.
  const publicClient = createPublicClient({
    chain: foundry,
    transport: http(rpcUrl),
    cacheTime: 0,
  });

  /** The marketplace as `account` sees it: typed reads, simulations and writes. */
  function as(account: HDAccount) {
    const wallet = createWalletClient({ account, chain: foundry, transport: http(rpcUrl) });
    return getContract({
      address,
      abi: serviceMarketplaceAbi,
      client: { public: publicClient, wallet },
    });
  }

  /** Waits for a sent transaction and asserts it succeeded. */
  async function mined(hash: Promise<Hex>) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    expect(receipt.status).toBe("success");
    return receipt;
  }

  return { publicClient, as, mined };
}

export type MarketplaceConnection = ReturnType<typeof connectMarketplace>;
