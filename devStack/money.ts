// The contract's split of a payment, for checking what it and the projections hold.

/** The protocol fee the contract takes from `amount` at `feeBasisPoints` (default 250: 2.5%). */
export function feeOf(amount: bigint, feeBasisPoints = 250n): bigint {
  return (amount * feeBasisPoints) / 10_000n;
}

/** What the creator earns of `amount`: the rest after the fee, so fee + share == amount exactly. */
export function shareOf(amount: bigint, feeBasisPoints = 250n): bigint {
  return amount - feeOf(amount, feeBasisPoints);
}
