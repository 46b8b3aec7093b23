import { type Hex, toFunctionSelector } from "viem";
import { formatAbiItem } from "viem/utils";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";

const errorNames = new Map(
  serviceMarketplaceAbi
    .filter((item) => item.type === "error")
    .map((item) => [toFunctionSelector(formatAbiItem(item)), item.name] as const),
);

/** The contract error a `QueryNotConsumed` reason is the selector of (`"CredentialRevoked"`). */
export function refusalName(reason: Hex): string {
  return errorNames.get(reason) ?? reason;
}
