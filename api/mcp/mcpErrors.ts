import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, errorBody } from "../http/errors.ts";
import { dependencyError, unavailableDependency } from "../http/unavailableDependency.ts";
import type { McpCaller } from "./mcpServer.ts";

/**
 * A handler's failure as a JSON-RPC error: an API error with its code in the message and its error
 * object as `data` (a refusal as an invalid request, a failure to serve as an internal error);
 * anything unexpected logged and told without its details.
 */
export async function answering<T>(caller: McpCaller, method: string, answer: () => Promise<T>) {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof McpError) throw error;
    const refusal = refusalOf(caller, error);
    if (refusal) {
      const code = refusal.status < 500 ? ErrorCode.InvalidRequest : ErrorCode.InternalError;
      throw new McpError(code, `${refusal.code}: ${refusal.message}`, errorBody(refusal));
    }
    caller.deps.log.error("unhandled error", {
      request_id: caller.requestId,
      path: "/mcp",
      method,
      error: error instanceof Error ? error.message : String(error),
    });
    throw new McpError(ErrorCode.InternalError, "internal_error: Unexpected error; retry");
  }
}

/**
 * The API error a failure is told as: its own, or the 503 of a dependency that did not answer
 * (logged as the app's error handler logs one); undefined for anything else.
 */
export function refusalOf({ deps, requestId }: McpCaller, error: unknown): ApiError | undefined {
  const cause = error instanceof ApiError ? error.cause : error;
  const dependency = unavailableDependency(cause);
  if (dependency) {
    // The cause's code or name only: a chain error's message quotes the request.
    const reason = cause instanceof Error ? ((cause as { code?: unknown }).code ?? cause.name) : "";
    deps.log.warn("dependency unavailable", {
      request_id: requestId,
      path: "/mcp",
      dependency,
      reason: String(reason),
    });
  }
  if (error instanceof ApiError) return error;
  return dependency && dependencyError(dependency, error);
}
