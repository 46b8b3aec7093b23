import { contractErrorName } from "../../lib/chain/contractErrorName.ts";

/** A failure in a line: the contract error's name when there is one, never a request's full dump. */
export function describeFailure(error: unknown): string {
  const name = contractErrorName(error);
  if (name) return `the contract refused: ${name}`;
  if (error instanceof Error)
    return (error as { shortMessage?: string }).shortMessage ?? error.message;
  return String(error);
}
