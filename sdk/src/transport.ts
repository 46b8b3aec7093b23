import {
  errorFromResponse,
  retryAfterSeconds,
  ServiceAPIError,
  ServiceConnectionError,
  ServiceTimeoutError,
} from "./errors.ts";
import { parseExactJson } from "./exactJson.ts";
import { DEFAULT_RETRY, type RetryOptions, retryDelayMs, sleep } from "./retry.ts";
import { SDK_VERSION } from "./version.ts";
import type { WalletSession } from "./walletSession.ts";

/** How requests prove who sends them. */
export type Authorization =
  | { apiKey: string }
  | { token: string }
  | { session: WalletSession }
  | { none: true };

export type ApiRequest = {
  method: "GET" | "POST" | "DELETE";
  /** From the base URL on, e.g. `/v1/listings`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** This request's own timeout in ms, instead of the client's. */
  timeout?: number;
  /** Sign-in itself goes without a token. */
  anonymous?: boolean;
};

export type TransportOptions = {
  baseUrl: string;
  authorization: Authorization;
  retry?: RetryOptions;
  /** Each attempt's time to answer, in ms (a stream's until its headers). */
  timeout?: number;
  fetch?: typeof fetch;
};

/** Ten minutes: more than the longest run (300 s) the API waits on before it answers. */
export const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * Answers worth asking again: the spec's "retry 500 and 503 with exponential backoff", a rate limit
 * (429) after its `Retry-After`, and the timeouts and gateway failures of whatever stands in front of
 * the API (408, 502, 504).
 */
const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

const USER_AGENT = `service-sdk/${SDK_VERSION}`;

/**
 * Sends requests to the API: the bearer token, retries of the statuses above and of failed
 * connections with backoff and jitter, a `Retry-After` honoured in full (a POST only when an
 * Idempotency-Key makes repeating it safe), one new sign-in when a wallet session's token was found
 * expired, and every failure as a typed error carrying the request's Idempotency-Key.
 */
export class Transport {
  readonly #baseUrl: string;
  readonly #authorization: Authorization;
  readonly #retry: Required<RetryOptions>;
  readonly #timeout: number;
  readonly #fetch: typeof fetch;

  constructor(options: TransportOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#authorization = options.authorization;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Sends a request and reads its JSON answer, the reading within the attempt's timeout. */
  json<T>(request: ApiRequest): Promise<T> {
    return this.#request(request, async (response) => parseExactJson<T>(await response.text()));
  }

  /** Sends a request and answers with its successful response, its body unread. */
  send(request: ApiRequest): Promise<Response> {
    return this.#request(request, async (response) => response);
  }

  async #request<T>(request: ApiRequest, read: (response: Response) => Promise<T>): Promise<T> {
    try {
      return await this.#attempts(request, read);
    } catch (error) {
      if (error instanceof ServiceAPIError) error.idempotencyKey = request.idempotencyKey;
      throw error;
    }
  }

  async #attempts<T>(request: ApiRequest, read: (response: Response) => Promise<T>): Promise<T> {
    const url = this.#url(request);
    const canRetry = request.method !== "POST" || request.idempotencyKey !== undefined;
    const timeout = request.timeout ?? this.#timeout;
    let signedInAgain = false;
    for (let attempt = 1; ; attempt++) {
      const token = request.anonymous ? undefined : await this.#token();
      const deadline = attemptSignal(request.signal, timeout);
      let failure: ServiceAPIError;
      let retryAfter: number | undefined;
      try {
        const response = await this.#fetch(url, this.#init(request, token, deadline.signal));
        if (response.ok) return await read(response);
        retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
        failure = await errorFromResponse(response);
        if (failure.code === "jwt_expired" && "session" in this.#authorization && !signedInAgain) {
          this.#authorization.session.forget(token ?? "");
          signedInAgain = true;
          attempt--;
          continue;
        }
        if (!RETRIED_STATUSES.has(failure.status)) throw failure;
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason;
        if (error instanceof ServiceAPIError) throw error;
        failure = deadline.timedOut()
          ? new ServiceTimeoutError(`No answer from ${this.#baseUrl} within ${timeout} ms`)
          : new ServiceConnectionError(`No answer from ${this.#baseUrl}`, { cause: error });
      } finally {
        deadline.clear();
      }
      if (!canRetry || attempt > this.#retry.maxRetries) throw failure;
      const delay = retryDelayMs(attempt, this.#retry, retryAfter);
      if (delay === undefined) throw failure;
      await sleep(delay, request.signal);
    }
  }

  async #token(): Promise<string | undefined> {
    const authorization = this.#authorization;
    if ("apiKey" in authorization) return authorization.apiKey;
    if ("token" in authorization) return authorization.token;
    if ("session" in authorization) return authorization.session.token();
    return undefined;
  }

  #url(request: ApiRequest): string {
    const url = new URL(`${this.#baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  #init(request: ApiRequest, token: string | undefined, signal: AbortSignal): RequestInit {
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": USER_AGENT,
    };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
    if (request.body !== undefined) headers["content-type"] = "application/json";
    return {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
    };
  }
}

/**
 * The signal of one attempt: aborted by the caller's signal, or once `timeoutMs` pass, until `clear`
 * (a stream read after it stops on the caller's signal by itself: `serverSentEvents`).
 */
function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller?.reason);
  caller?.addEventListener("abort", onAbort, { once: true });
  if (caller?.aborted) onAbort();
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`No answer within ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clear: () => {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
    },
  };
}
