import { formatEther } from "viem";

export const RENTAL_MODEL_NAMES = {
  one_time: "One-time",
  subscription: "Subscription",
  per_query: "Per task",
} as const;

/** What each finality of a valid credential means to its renter. */
export const FINALITY_DESCRIPTIONS = {
  latest: "in the latest block only; a reorganisation could still undo it",
  safe: "in the chain's safe block; unlikely to be undone",
  finalized: "finalized; the chain will not undo it",
} as const;

export function formatEth(wei: bigint): string {
  return `${formatEther(wei)} ETH`;
}

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
}
