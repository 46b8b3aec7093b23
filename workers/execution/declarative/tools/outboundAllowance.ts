/**
 * The bytes a run's tools may still read from outside. A call takes what it may read before it
 * starts, so calls running at once cannot each count on the same remainder, and gives back what it
 * did not read.
 */
export type OutboundAllowance = {
  total: number;
  /** Up to `wanted` bytes, held for one call; 0 when none remain. */
  take: (wanted: number) => number;
  /** Ends a call that took `taken` and read `read` (at most one network read past it). */
  settle: (taken: number, read: number) => void;
};

export function outboundAllowance(total: number): OutboundAllowance {
  let remaining = total;
  return {
    total,
    take: (wanted) => {
      const taken = Math.max(0, Math.min(wanted, remaining));
      remaining -= taken;
      return taken;
    },
    settle: (taken, read) => {
      remaining += taken - read;
    },
  };
}
