/** A call the database did not answer within its deadline; the connection it held was dropped. */
export class DatabaseDeadlineError extends Error {
  override name = "DatabaseDeadlineError";
}

/** postgres.js's own codes for a connection that failed, and the socket's. */
const CONNECTION_FAILURES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * The server's SQLSTATEs for "not now": a statement past `statement_timeout` (57014), a server
 * shutting down or starting (57P01-57P03), no connection slot free (53300).
 */
const SERVER_UNAVAILABLE = new Set(["57014", "57P01", "57P02", "57P03", "53300"]);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

/** Whether `error` says the connection itself failed: it is of no more use. */
export function isConnectionFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (CONNECTION_FAILURES.has(code) || code.startsWith("08"));
}

/**
 * Whether `error` says the database could not answer (a retry may help), not that the statement was
 * wrong: a call past its deadline, a failed connection, a server refusing work for now.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseDeadlineError || isConnectionFailure(error)) return true;
  const code = codeOf(error);
  return code !== undefined && SERVER_UNAVAILABLE.has(code);
}
