import { isChainUnavailable } from "../../lib/chain/isChainUnavailable.ts";
import { isDatabaseUnavailable } from "../../lib/db/databaseUnavailable.ts";
import { DEPENDENCY_RETRY_AFTER_SECONDS } from "../limits.ts";
import { ApiError } from "./errors.ts";

export type Dependency = "database" | "chain";

/** The 503 for a dependency that did not answer in time or at all. */
export function dependencyError(dependency: Dependency, cause: unknown): ApiError {
  const message =
    dependency === "database"
      ? "The database did not answer in time; retry shortly"
      : "The chain could not be read; retry shortly";
  return new ApiError("service_unavailable", message, {
    cause,
    retryAfterSeconds: DEPENDENCY_RETRY_AFTER_SECONDS,
  });
}

/** Which dependency `error` says did not answer, if it says that. */
export function unavailableDependency(error: unknown): Dependency | undefined {
  if (isDatabaseUnavailable(error)) return "database";
  if (isChainUnavailable(error)) return "chain";
  return undefined;
}
