import { BaseError, ContractFunctionRevertedError } from "viem";

/** The custom error a contract call reverted with (`"CredentialAlreadyExists"`), if that is the cause. */
export function contractErrorName(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : undefined;
}
