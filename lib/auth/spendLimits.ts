/**
 * What an API key may spend, as the service enforces it (docs/decisions.md, "Spend limits on an API
 * key"): at most `dailyCapWei` a UTC day over the per-task runs it starts, and runs of
 * `allowedListings` (on-chain ids, lowercase) only. Null: no such limit.
 */
export type SpendLimits = {
  dailyCapWei: bigint | null;
  allowedListings: readonly string[] | null;
};

/** A key's limits from its row. */
export function spendLimitsOf(row: {
  dailySpendCapWei: string | null;
  allowedListings: string[] | null;
}): SpendLimits {
  return {
    dailyCapWei: row.dailySpendCapWei === null ? null : BigInt(row.dailySpendCapWei),
    allowedListings: row.allowedListings,
  };
}
