import { BaseError, HttpRequestError, RpcRequestError, TimeoutError } from "viem";
import { contractErrorName } from "./contractErrorName.ts";

/** Whether `error` says the chain could not be reached or answered (a retry may help), not a revert. */
export function isChainUnavailable(error: unknown): boolean {
  if (!(error instanceof BaseError) || contractErrorName(error) !== undefined) return false;
  return (
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        cause instanceof RpcRequestError,
    ) !== null
  );
}
