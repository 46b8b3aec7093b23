import { ApiError } from "../errors.ts";

/**
 * Streams open in this process, counted per wallet: a wallet may hold at most `perWallet` at once,
 * so that one caller cannot pin the process's connections and notice handlers.
 */
export function createOpenStreams(perWallet: number) {
  const open = new Map<string, number>();
  return {
    /** Counts a new stream of `wallet`, or refuses it; answers the function that ends it, once. */
    claim(wallet: string): () => void {
      const key = wallet.toLowerCase();
      const count = open.get(key) ?? 0;
      if (count >= perWallet) {
        throw new ApiError(
          "rate_limit_exceeded",
          `At most ${perWallet} listing streams may be open per wallet; close one first`,
        );
      }
      open.set(key, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(key) ?? 1) - 1;
        if (left === 0) open.delete(key);
        else open.set(key, left);
      };
    },
  };
}
