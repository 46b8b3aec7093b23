import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import type { MarketplaceTransaction, TransactionStage } from "./useMarketplaceTransaction.ts";

const STAGE_TEXT: Record<TransactionStage, string> = {
  idle: "",
  signing: "Confirm the transaction in your wallet…",
  pending: "Pending: waiting for the transaction to be mined…",
  mined: "Mined: waiting for the marketplace to index it…",
  indexed: "Done: the marketplace has indexed the transaction.",
  failed: "",
};

/** Where a transaction is, its hash once sent, and why it failed if it did. */
export function TransactionProgress({
  transaction: { stage, hash, error },
}: {
  transaction: Pick<MarketplaceTransaction, "stage" | "hash" | "error">;
}) {
  return (
    <div className="transaction" aria-live="polite">
      {STAGE_TEXT[stage] && <p role="status">{STAGE_TEXT[stage]}</p>}
      {hash && (
        <p className="hash">
          Transaction <code>{hash}</code>
        </p>
      )}
      <ErrorMessage error={error} />
    </div>
  );
}
