import type { Hex } from "viem";
import { usePerTaskBalance } from "../chain/usePerTaskBalance.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { formatEth } from "../ui/formatting.ts";

/** The per-task balance, read from the contract and refreshed as runs are debited. */
export function PerTaskBalance({ onChainId }: { onChainId: Hex }) {
  const { balance, error } = usePerTaskBalance(onChainId);
  return (
    <>
      <p>
        Balance:{" "}
        <strong data-testid="balance">{balance === undefined ? "…" : formatEth(balance)}</strong>
      </p>
      {balance === undefined && <ErrorMessage error={error} />}
    </>
  );
}
