// Drives the deployed marketplace from tests and benchmarks: typed contract handles per account,
// mined receipts.
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
import type { LocalAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { serviceMarketplaceAbi } from "../lib/contracts/serviceMarketplace.ts";
import { RENTAL_MODELS, type RentalModel } from "../lib/marketplace/vocabulary.ts";

/** The contract's `RentalModel` value of `model`. */
const onChainRentalModel = (model: RentalModel) => RENTAL_MODELS.indexOf(model) as 0 | 1 | 2;

export const ONE_TIME = onChainRentalModel("one_time");
export const SUBSCRIPTION = onChainRentalModel("subscription");
export const PER_QUERY = onChainRentalModel("per_query");
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
  function as(account: LocalAccount) {
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
    if (receipt.status !== "success")
      throw new Error(`transaction ${receipt.transactionHash} reverted`);
    return receipt;
  }

  return { publicClient, as, mined };
}

export type MarketplaceConnection = ReturnType<typeof connectMarketplace>;
