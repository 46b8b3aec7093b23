import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Hash } from "viem";
import { useConfig } from "wagmi";
import { waitForTransactionReceipt } from "wagmi/actions";

/** Where a transaction is: signed in the wallet, sent, mined, then seen by the API's indexer. */
export type TransactionStage = "idle" | "signing" | "pending" | "mined" | "indexed" | "failed";

const INDEX_POLL_MS = 500;
const INDEX_TIMEOUT_MS = 60_000;

/**
 * Sends a marketplace transaction and follows it until the API reflects it: `indexed` is asked
 * until it answers true, then every query is fetched again.
 */
export function useMarketplaceTransaction() {
  const config = useConfig();
  const queryClient = useQueryClient();
  const [stage, setStage] = useState<TransactionStage>("idle");
  const [hash, setHash] = useState<Hash>();
  const [error, setError] = useState<unknown>();

  async function run(send: () => Promise<Hash>, indexed: () => Promise<boolean>) {
    setError(undefined);
    setHash(undefined);
    setStage("signing");
    try {
      const sent = await send();
      setHash(sent);
      setStage("pending");
      const receipt = await waitForTransactionReceipt(config, { hash: sent });
      if (receipt.status !== "success") throw new Error("The transaction reverted");
      setStage("mined");
      const deadline = Date.now() + INDEX_TIMEOUT_MS;
      while (!(await indexed())) {
        if (Date.now() > deadline) throw new Error("Mined, but the API has not seen it yet");
        await new Promise((resolve) => setTimeout(resolve, INDEX_POLL_MS));
      }
      setStage("indexed");
      await queryClient.invalidateQueries();
    } catch (caught) {
      setError(caught);
      setStage("failed");
    }
  }

  return {
    stage,
    hash,
    error,
    run,
    busy: stage === "signing" || stage === "pending" || stage === "mined",
  };
}

export type MarketplaceTransaction = ReturnType<typeof useMarketplaceTransaction>;
