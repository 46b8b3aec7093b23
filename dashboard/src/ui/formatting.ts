import { formatEther } from "viem";

export const RENTAL_MODEL_NAMES = {
  one_time: "One-time",
  subscription: "Subscription",
  per_query: "Per task",
} as const;

export function formatEth(wei: bigint): string {
  return `${formatEther(wei)} ETH`;
}

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
}
