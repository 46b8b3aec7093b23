import { ApiError } from "../http/errors.ts";

/**
 * Streams open in this process, counted per wallet and in all: a wallet may hold at most `perWallet`
 * at once, so that one caller cannot pin the process's connections and notice handlers, and the
 * process at most `perProcess`, so that many wallets together cannot either. A refusal says when
 * to try again.
 */
export function createOpenStreams({
  perWallet,
  perProcess,
  retryAfterSeconds,
}: {
  perWallet: number;
  perProcess: number;
  retryAfterSeconds: number;
}) {
  const open = new Map<string, number>();
  let total = 0;
  return {
    /** Counts a new stream of `wallet`, or refuses it; answers the function that ends it, once. */
    claim(wallet: string): () => void {
      const key = wallet.toLowerCase();
      const count = open.get(key) ?? 0;
      if (count >= perWallet) {
        throw new ApiError(
          "rate_limit_exceeded",
          `At most ${perWallet} listing streams may be open per wallet; close one first`,
          { retryAfterSeconds },
        );
      }
      if (total >= perProcess) {
        throw new ApiError(
          "service_unavailable",
          "This server holds as many listing streams as it can; try again later",
          { retryAfterSeconds },
        );
      }
      open.set(key, count + 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (open.get(key) ?? 1) - 1;
        if (left === 0) open.delete(key);
        else open.set(key, left);
      };
    },
  };
}
