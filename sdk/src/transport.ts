import {
  errorFromResponse,
  retryAfterSeconds,
  ServiceAPIError,
  ServiceConnectionError,
} from "./errors.ts";
import { parseExactJson } from "./exactJson.ts";
import { DEFAULT_RETRY, type RetryOptions, retryDelayMs, sleep } from "./retry.ts";
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
  /** Sign-in itself goes without a token. */
  anonymous?: boolean;
};

export type TransportOptions = {
  baseUrl: string;
  authorization: Authorization;
  retry?: RetryOptions;
  fetch?: typeof fetch;
};

/** Answers worth asking again: the spec's "retry 500 and 503 with exponential backoff". */
const RETRIED_STATUSES = new Set([500, 503]);

/**
 * Sends requests to the API: the bearer token, retries of 500, 503 and failed connections with
 * backoff and jitter (a POST only when an Idempotency-Key makes repeating it safe), one new sign-in
 * when a wallet session's token was found expired, and every failure as a typed error.
 */
export class Transport {
  readonly #baseUrl: string;
  readonly #authorization: Authorization;
  readonly #retry: Required<RetryOptions>;
  readonly #fetch: typeof fetch;

  constructor(options: TransportOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#authorization = options.authorization;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Sends a request and reads its JSON answer. */
  async json<T>(request: ApiRequest): Promise<T> {
    const response = await this.send(request);
    const text = await response.text();
    return parseExactJson<T>(text);
  }

  /** Sends a request and answers with its successful response, its body unread. */
  async send(request: ApiRequest): Promise<Response> {
    const url = this.#url(request);
    const canRetry = request.method !== "POST" || request.idempotencyKey !== undefined;
    let signedInAgain = false;
    for (let attempt = 1; ; attempt++) {
      const token = request.anonymous ? undefined : await this.#token();
      let failure: ServiceAPIError;
      let retryAfter: number | undefined;
      try {
        const response = await this.#fetch(url, this.#init(request, token));
        if (response.ok) return response;
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
        failure = new ServiceConnectionError(`No answer from ${this.#baseUrl}`, { cause: error });
      }
      if (!canRetry || attempt > this.#retry.maxRetries) throw failure;
      await sleep(retryDelayMs(attempt, this.#retry, retryAfter), request.signal);
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

  #init(request: ApiRequest, token: string | undefined): RequestInit {
    const headers: Record<string, string> = { accept: "application/json" };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
    if (request.body !== undefined) headers["content-type"] = "application/json";
    return {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: request.signal,
    };
  }
}
