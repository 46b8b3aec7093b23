import type { ReactNode } from "react";
import { TransactionProgress } from "./TransactionProgress.tsx";
import type { MarketplaceTransaction } from "./useMarketplaceTransaction.ts";

/**
 * A form that sends one marketplace transaction and follows it: its fields, its button (disabled
 * while the transaction is under way, or when `disabled`), the transaction's progress, then `after`.
 */
export function TransactionForm({
  label,
  transaction,
  onSubmit,
  submitText,
  disabled = false,
  children,
  after,
}: {
  label: string;
  transaction: MarketplaceTransaction;
  onSubmit: () => unknown;
  submitText: string;
  disabled?: boolean;
  children: ReactNode;
  after?: ReactNode;
}) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
      className="inline-form"
      aria-label={label}
    >
      {children}
      <button type="submit" disabled={transaction.busy || disabled}>
        {submitText}
      </button>
      <TransactionProgress transaction={transaction} />
      {after}
    </form>
  );
}
