import { encodeFunctionData, type Hex } from "viem";
import { serviceMarketplaceAbi } from "../lib/contracts/serviceMarketplace.ts";

/** Calldata of the marketplace's `functionName`, for raw `eth_sendTransaction`s. */
export const marketplaceCall = (functionName: string, args: readonly unknown[]) =>
  encodeFunctionData({ abi: serviceMarketplaceAbi, functionName, args } as never) as Hex;
