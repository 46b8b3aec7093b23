/** The contract failure behind an error, when there was one: the raw Solidity error name. */
export type OnChainError = { contract: string; error: string };

export type ServiceAPIErrorInit = {
  code: string;
  message: string;
  status: number;
  requestId?: string;
  onChainError?: OnChainError;
};

/** Every failure the API answers with (its error object), or a request that got no answer. */
export class ServiceAPIError extends Error {
  /** The API's error code, e.g. `credential_not_found`; `connection_error` when nothing answered. */
  readonly code: string;
  /** The HTTP status; 0 when nothing answered. */
  readonly status: number;
  /** The `X-Request-Id` of the answer: quote it to support. */
  readonly requestId?: string;
  readonly onChainError?: OnChainError;
  /**
   * The `Idempotency-Key` the request was sent with (`execute`, `executeStream`, `agents.register`):
   * send the same request again under it to reach the same run, run and charged once.
   */
  idempotencyKey?: string;

  constructor(init: ServiceAPIErrorInit, options?: { cause?: unknown }) {
    super(init.message, options);
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.onChainError = init.onChainError;
  }
}

/** 401: no credentials, an invalid or revoked key, an expired token, a signature that fails. */
export class ServiceAuthError extends ServiceAPIError {}

/** 403: no valid rental credential for the listing (or another refusal of access). */
export class ServiceAccessError extends ServiceAPIError {}

/** 404: no such listing, job, run or endpoint. */
export class ServiceNotFoundError extends ServiceAPIError {}

/** 429: a rate limit; `retryAfter` is how many seconds to wait (the `Retry-After` header). */
export class ServiceRateLimitError extends ServiceAPIError {
  readonly retryAfter: number;

  constructor(init: ServiceAPIErrorInit & { retryAfter: number }, options?: { cause?: unknown }) {
    super(init, options);
    this.retryAfter = init.retryAfter;
  }
}

/** The request got no answer: the network failed, or a stream ended before its `done` event. */
export class ServiceConnectionError extends ServiceAPIError {
  constructor(message: string, options?: { cause?: unknown }) {
    super({ code: "connection_error", message, status: 0 }, options);
  }
}

/** No answer within the client's `timeout`: retried as a failed connection is. */
export class ServiceTimeoutError extends ServiceConnectionError {}

/**
 * The client would not sign what the API sent: a sign-in message must be EIP-4361 (SIWE), name the
 * host of the client's `baseUrl` and the client's wallet. Anything else may be a signature meant for
 * another site, asked for through this one.
 */
export class ServiceSigningRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The error an API error object stands for, of the class its status calls for. */
export function serviceError(init: ServiceAPIErrorInit, retryAfter: number | undefined) {
  switch (init.status) {
    case 401:
      return new ServiceAuthError(init);
    case 403:
      return new ServiceAccessError(init);
    case 404:
      return new ServiceNotFoundError(init);
    case 429:
      return new ServiceRateLimitError({ ...init, retryAfter: retryAfter ?? 1 });
    default:
      return new ServiceAPIError(init);
  }
}

/** Reads a failed response's error object; a body that is not one still becomes an error. */
export async function errorFromResponse(response: Response): Promise<ServiceAPIError> {
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const text = await response.text().catch(() => "");
  return serviceError(
    { ...describedError(text, response.status), requestId },
    retryAfterSeconds(response.headers.get("retry-after")),
  );
}

/** What a body in the spec's error format (or in `event: error` of a stream) says. */
export function describedError(text: string, status: number) {
  try {
    const { error } = JSON.parse(text) as {
      error?: Partial<ServiceAPIErrorInit> & { on_chain_error?: OnChainError };
    };
    if (error && typeof error.code === "string") {
      return {
        code: error.code,
        message: String(error.message ?? error.code),
        status: typeof error.status === "number" ? error.status : status,
        onChainError: error.on_chain_error,
      };
    }
  } catch {
    // Not JSON: described by its status below.
  }
  return {
    code: status >= 500 ? "internal_error" : "unexpected_response",
    message: `HTTP ${status}`,
    status,
  };
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
