import { formatEther, parseEther } from "viem";

/** An amount in wei as an ETH input's text. */
export function ethInput(wei: bigint): string {
  return formatEther(wei);
}

/** An ETH amount typed in, in wei; undefined when it is not one. */
export function parseEthInput(text: string): bigint | undefined {
  const trimmed = text.trim();
  return /^\d{1,12}(\.\d{1,18})?$/.test(trimmed) ? parseEther(trimmed) : undefined;
}
