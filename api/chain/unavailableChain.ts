import { isChainUnavailable } from "../../lib/chain/isChainUnavailable.ts";
import { dependencyError } from "../http/unavailableDependency.ts";

/** Rethrows a chain that could not be read as 503 `service_unavailable`; anything else as it is. */
export function unavailableChain(error: unknown): never {
  if (!isChainUnavailable(error)) throw error;
  throw dependencyError("chain", error);
}
