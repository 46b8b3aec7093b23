import { cursorPaged } from "./cursorPaged.ts";
import { reattachingExecuteStream } from "./executeStream.ts";
import { newIdempotencyKey } from "./idempotencyKey.ts";
import {
  type CreatorListingsBody,
  creatorListingsOf,
  listingsStreamEvents,
} from "./listingsStream.ts";
import { type Paged, paged } from "./paged.ts";
import type { ReceiptDocument } from "./receipts/receiptTypes.ts";
import { type PurchaseWallet, type Rental, type RentChoice, rent as rentListing } from "./rent.ts";
import { type RetryOptions, sleep } from "./retry.ts";
import { type Authorization, Transport } from "./transport.ts";
import type {
  ApiKey,
  ApiKeyScope,
  CreatedApiKey,
  CreatedWebhookEndpoint,
  CreatorListing,
  CreatorRunListPage,
  Credential,
  CredentialCheck,
  CredentialList,
  CredentialListParams,
  DailyRunTotals,
  ExecuteRequest,
  ExecuteStreamEvent,
  Job,
  Listing,
  ListingSummary,
  Marketplace,
  PageParams,
  Review,
  ReviewPage,
  ReviewRequest,
  Run,
  RunAccepted,
  RunListItem,
  RunListPage,
  RunListParams,
  RunResult,
  SearchParams,
  SearchResult,
  ToolFormat,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookEvent,
} from "./types.ts";
import { WalletSession, type WalletSigner } from "./walletSession.ts";

export type ServiceClientOptions = {
  /** Where the API is served, e.g. `https://api.example.com` (the `/v1` prefix is added). */
  baseUrl: string;
  /** Retries of 408, 429, 500, 502, 503, 504 and failed connections; on by default. */
  retry?: RetryOptions;
  /**
   * Each attempt's time to answer in ms, a stream's until it starts (then it runs as long as its
   * run); 600,000 (10 minutes) by default. One that passes is a `ServiceTimeoutError`, retried.
   */
  timeout?: number;
  /** A `fetch` to send requests with; the global one by default. */
  fetch?: typeof fetch;
} & (
  | { apiKey: string; token?: never; account?: never }
  | { token: string; apiKey?: never; account?: never }
  | { account: WalletSigner; apiKey?: never; token?: never }
  | { apiKey?: never; token?: never; account?: never }
);

/** Per call: cancel it with a signal; give it its own timeout (ms). */
export type CallOptions = { signal?: AbortSignal; timeout?: number };
export type ExecuteOptions = CallOptions & {
  /**
   * Retries with the same key run the task once. A new key per call by default; an error carries
   * the key used (`idempotencyKey`).
   */
  idempotencyKey?: string;
};

/**
 * An execution's events; also the Idempotency-Key it was sent with and, once the stream has
 * started, its run's id (the API's `X-Run-Id` header), known before `done` says it.
 */
export type ExecuteStream = AsyncGenerator<ExecuteStreamEvent, void, undefined> & {
  readonly idempotencyKey: string;
  readonly runId: string | undefined;
};

/** `CreatorRunListPage` as the API sends it: `earned_wei` a decimal string. */
type WireCreatorRunListPage = Omit<CreatorRunListPage, "daily"> & {
  daily: (Omit<DailyRunTotals, "earned_wei"> & { earned_wei: string })[];
};

/** A job is polled this often while it is queued. */
const JOB_POLL_MS = 500;

/**
 * A client of the marketplace's REST API, authenticated with an API key, a JWT already held, or a
 * wallet account that signs in by itself (and signs in again before its token expires).
 */
export class ServiceClient {
  readonly #transport: Transport;
  readonly #session?: WalletSession;

  constructor(options: ServiceClientOptions) {
    const anonymous = new Transport({ ...options, authorization: { none: true } });
    this.#session = options.account
      ? new WalletSession(options.account, {
          domain: new URL(options.baseUrl).host,
          challenge: (wallet) =>
            anonymous.json({
              method: "GET",
              path: "/v1/auth/challenge",
              query: { wallet, format: "siwe" },
            }),
          token: (body) => anonymous.json({ method: "POST", path: "/v1/auth/token", body }),
        })
      : undefined;
    this.#transport = new Transport({
      ...options,
      authorization: authorizationOf(options, this.#session),
    });
  }

  /** Runs a task on a rented agent and answers with its result. */
  execute(request: ExecuteRequest, options: ExecuteOptions = {}): Promise<RunResult> {
    return this.#transport.json({
      method: "POST",
      path: "/v1/execute",
      body: request,
      idempotencyKey: options.idempotencyKey ?? newIdempotencyKey(),
      ...perCall(options),
    });
  }

  /**
   * Runs a task and yields its output as the agent produces it, then `done` with the run's result.
   * A stream that breaks before `done` is reattached to its run once, under the same key, and goes
   * on where it was. Aborting the signal ends the stream (the run itself goes on and is charged as
   * usual).
   */
  executeStream(request: ExecuteRequest, options: ExecuteOptions = {}): ExecuteStream {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    let runId: string | undefined;
    const open = async () => {
      const response = await this.#transport.send({
        method: "POST",
        path: "/v1/execute/stream",
        body: request,
        idempotencyKey,
        ...perCall(options),
      });
      runId = response.headers.get("x-run-id") ?? runId;
      return response;
    };
    const events = reattachingExecuteStream(open, idempotencyKey, options.signal);
    return Object.defineProperties(events, {
      idempotencyKey: { value: idempotencyKey, enumerable: true },
      runId: { get: () => runId, enumerable: true },
    }) as ExecuteStream;
  }

  /**
   * Rents a listing from `wallet` (a viem `WalletClient` with its account and chain): sends the
   * contract call its `purchase` describes for `choice`, `{ days }` of a subscription, `{ runs }` of
   * a per-task deposit, nothing for One-Time; `extend: true` renews or tops up instead.
   */
  async rent(
    listingId: string,
    wallet: PurchaseWallet,
    choice: RentChoice = {},
    options: CallOptions = {},
  ): Promise<Rental> {
    return rentListing(await this.listings.get(listingId, options), wallet, choice);
  }

  readonly marketplace = {
    /** The chain and contract to pay on, and the protocol's fee and pause; needs no credentials. */
    get: (options: CallOptions = {}): Promise<Marketplace> =>
      this.#transport.json({
        method: "GET",
        path: "/v1/marketplace",
        anonymous: true,
        ...perCall(options),
      }),
    /** The contract's JSON ABI. */
    abi: (options: CallOptions = {}): Promise<unknown[]> =>
      this.#transport.json({
        method: "GET",
        path: "/v1/marketplace/abi",
        anonymous: true,
        ...perCall(options),
      }),
  };

  readonly listings = {
    /** Searches the catalogue: a page awaited, every listing found iterated (`for await`). */
    search: (
      params: SearchParams = {},
      options: CallOptions = {},
    ): Paged<SearchResult, ListingSummary> =>
      paged(params, {
        read: (offset, limit) =>
          this.#get<SearchResult>("/v1/listings", { ...params, offset, limit }, options),
        items: (page) => page.listings,
        total: (page) => page.total,
        idOf: (listing) => listing.id,
      }),
    /** `search`, named for walking the catalogue: `for await (const l of listings.list(...))`. */
    list: (params: SearchParams = {}, options: CallOptions = {}) =>
      this.listings.search(params, options),
    /** One listing with every detail field. */
    get: (listingId: string, options: CallOptions = {}): Promise<Listing> =>
      this.#get(`/v1/listings/${encodeURIComponent(listingId)}`, {}, options),
    /** A page of the listing's reviews, the last written first; iterated, all of them. */
    reviews: (
      listingId: string,
      page: PageParams = {},
      options: CallOptions = {},
    ): Paged<ReviewPage, Review> =>
      paged(page, {
        read: (offset, limit) =>
          this.#get<ReviewPage>(
            `/v1/listings/${encodeURIComponent(listingId)}/reviews`,
            { offset, limit },
            options,
          ),
        items: (reviews) => reviews.reviews,
        total: (reviews) => reviews.total,
        idOf: (review) => review.id,
      }),
    /**
     * The caller's review of a listing it rented and completed a run on; again, it replaces it.
     * Refused with `review_not_allowed` (403) otherwise.
     */
    review: (
      listingId: string,
      review: ReviewRequest,
      options: CallOptions = {},
    ): Promise<Review> =>
      this.#transport.json({
        method: "POST",
        path: `/v1/listings/${encodeURIComponent(listingId)}/reviews`,
        body: review,
        ...perCall(options),
      }),
    /** The listing creator's one reply to a review. */
    reply: (
      listingId: string,
      reviewId: string,
      text: string,
      options: CallOptions = {},
    ): Promise<Review> =>
      this.#transport.json({
        method: "POST",
        path: `/v1/listings/${encodeURIComponent(listingId)}/reviews/${encodeURIComponent(reviewId)}/reply`,
        body: { text },
        ...perCall(options),
      }),
  };

  /** The caller's own listings, as their creator. */
  readonly creators = {
    /** Every listing the caller created, in any status, the last published first. */
    myListings: async (options: CallOptions = {}): Promise<CreatorListing[]> =>
      creatorListingsOf(
        await this.#get<CreatorListingsBody>("/v1/creators/me/listings", {}, options),
      ),
    /**
     * The caller's listings now, then again each time they change (a purchase, a run, a
     * withdrawal), until the signal aborts; then the iteration simply ends. A stream the API ends
     * (its process stopping) throws a `ServiceConnectionError`: watch again to follow on. One it
     * ends with an error event (the listings unreadable, the token expired, the key revoked) throws
     * the error it carries (`jwt_expired`, `invalid_api_key`, …).
     */
    watchMyListings: (
      options: CallOptions = {},
    ): AsyncGenerator<CreatorListing[], void, undefined> => this.#watchMyListings(options),
    /**
     * The runs of the caller's listings, any renter's, newest first, never their inputs or outputs:
     * the first page awaited (with `daily`, the totals per UTC day of the window, 30 days by
     * default), all the runs iterated (`for await`).
     */
    myRuns: (
      params: RunListParams = {},
      options: CallOptions = {},
    ): Paged<CreatorRunListPage, RunListItem> =>
      cursorPaged({
        read: async (cursor) => {
          const page = await this.#get<WireCreatorRunListPage>(
            "/v1/creators/me/runs",
            { ...params, cursor: cursor ?? params.cursor },
            options,
          );
          return {
            ...page,
            daily: page.daily.map((day) => ({ ...day, earned_wei: BigInt(day.earned_wei) })),
          };
        },
        items: (page) => page.runs,
        next: (page) => page.next_cursor,
      }),
  };

  readonly credentials = {
    /** The caller's rental credentials: a page awaited, all of them iterated. */
    list: (
      params: CredentialListParams = {},
      options: CallOptions = {},
    ): Paged<CredentialList, Credential> =>
      paged(params, {
        read: (offset, limit) =>
          this.#get<CredentialList>("/v1/credentials", { ...params, offset, limit }, options),
        items: (page) => page.credentials,
        total: (page) => page.total,
        idOf: (credential) => credential.listing_id,
      }),
    /** The caller's credential for a listing, checked on-chain at the latest block. */
    verify: (listingId: string, options: CallOptions = {}): Promise<CredentialCheck> =>
      this.#get(`/v1/credentials/${encodeURIComponent(listingId)}`, {}, options),
  };

  readonly agents = {
    /** Submits a manifest for registration; the job says how it went (`jobs.wait`). */
    register: (
      manifest: Record<string, unknown>,
      options: ExecuteOptions = {},
    ): Promise<{ job_id: string; status: "queued" }> =>
      this.#transport.json({
        method: "POST",
        path: "/v1/agents",
        body: manifest,
        idempotencyKey: options.idempotencyKey ?? newIdempotencyKey(),
        ...perCall(options),
      }),
    /**
     * Submits a new version of the caller's agent (its registration's agent id, or listing id); the
     * completed job gives the arguments of `updateListing`, whose transaction makes it current.
     */
    registerVersion: (
      agentId: string,
      manifest: Record<string, unknown>,
      options: ExecuteOptions = {},
    ): Promise<{ job_id: string; status: "queued" }> =>
      this.#transport.json({
        method: "POST",
        path: `/v1/agents/${encodeURIComponent(agentId)}/versions`,
        body: manifest,
        idempotencyKey: options.idempotencyKey ?? newIdempotencyKey(),
        ...perCall(options),
      }),
  };

  readonly jobs = {
    get: (jobId: string, options: CallOptions = {}): Promise<Job> =>
      this.#get(`/v1/jobs/${encodeURIComponent(jobId)}`, {}, options),
    /** Polls a job until it is completed or failed. */
    wait: async (jobId: string, options: CallOptions = {}): Promise<Job> => {
      for (;;) {
        const job = await this.jobs.get(jobId, options);
        if (job.status !== "queued") return job;
        await sleep(JOB_POLL_MS, options.signal);
      }
    },
  };

  readonly runs = {
    /**
     * Starts a task as `execute` does (same checks and charging) without waiting for it; retries
     * under the same key start it once. `get` gives its result.
     */
    create: (request: ExecuteRequest, options: ExecuteOptions = {}): Promise<RunAccepted> =>
      this.#transport.json({
        method: "POST",
        path: "/v1/runs",
        body: request,
        idempotencyKey: options.idempotencyKey ?? newIdempotencyKey(),
        ...perCall(options),
      }),
    /** One of the caller's runs: its result once final, else how far it got. */
    get: (runId: string, options: CallOptions = {}): Promise<Run> =>
      this.#get(`/v1/runs/${encodeURIComponent(runId)}`, {}, options),
    /**
     * A finished run's signed receipt, as the API sends it (its `cost_wei` a decimal string): check
     * it with `verifyReceipt`. A run not final yet is a `ServiceAPIError` of status 409.
     */
    receipt: async (runId: string, options: CallOptions = {}): Promise<ReceiptDocument> => {
      const response = await this.#transport.send({
        method: "GET",
        path: `/v1/runs/${encodeURIComponent(runId)}/receipt`,
        ...perCall(options),
      });
      return (await response.json()) as ReceiptDocument;
    },
    /** The caller's runs, newest first: the first page awaited, all of them iterated (`for await`). */
    list: (
      params: RunListParams = {},
      options: CallOptions = {},
    ): Paged<RunListPage, RunListItem> =>
      cursorPaged({
        read: (cursor) =>
          this.#get<RunListPage>(
            "/v1/runs",
            { ...params, cursor: cursor ?? params.cursor },
            options,
          ),
        items: (page) => page.runs,
        next: (page) => page.next_cursor,
      }),
  };

  readonly tools = {
    /** `POST /v1/execute` as a function-calling tool, in the format of OpenAI's or Anthropic's API. */
    definition: (format: ToolFormat = "openai", options: CallOptions = {}): Promise<unknown> =>
      this.#get("/v1/tools/execute", { format }, options),
  };

  /** Where the wallet's events are delivered, signed as Standard Webhooks sign them. */
  readonly webhooks = {
    /** Registers an endpoint for `events`; the secret its deliveries are signed with is in the answer only. */
    create: (
      url: string,
      events: WebhookEvent[],
      options: CallOptions = {},
    ): Promise<CreatedWebhookEndpoint> =>
      this.#transport.json({
        method: "POST",
        path: "/v1/webhooks",
        body: { url, events },
        ...perCall(options),
      }),
    /** The wallet's endpoints, newest first. */
    list: async (options: CallOptions = {}): Promise<WebhookEndpoint[]> =>
      (await this.#get<{ webhooks: WebhookEndpoint[] }>("/v1/webhooks", {}, options)).webhooks,
    get: (endpointId: string, options: CallOptions = {}): Promise<WebhookEndpoint> =>
      this.#get(`/v1/webhooks/${encodeURIComponent(endpointId)}`, {}, options),
    /** Deletes an endpoint: nothing more is delivered there. */
    delete: (endpointId: string, options: CallOptions = {}): Promise<WebhookEndpoint> =>
      this.#transport.json({
        method: "DELETE",
        path: `/v1/webhooks/${encodeURIComponent(endpointId)}`,
        ...perCall(options),
      }),
    /** An endpoint's delivery log, newest first: the first page awaited, all of it iterated (`for await`). */
    deliveries: (
      endpointId: string,
      params: WebhookDeliveryParams = {},
      options: CallOptions = {},
    ): Paged<WebhookDeliveryPage, WebhookDelivery> =>
      cursorPaged({
        read: (cursor) =>
          this.#get<WebhookDeliveryPage>(
            `/v1/webhooks/${encodeURIComponent(endpointId)}/deliveries`,
            { ...params, cursor: cursor ?? params.cursor },
            options,
          ),
        items: (page) => page.deliveries,
        next: (page) => page.next_cursor,
      }),
  };

  /** API keys belong to a wallet: these need a client made with `account`. */
  readonly apiKeys = {
    list: async (options: CallOptions = {}): Promise<ApiKey[]> =>
      (await this.#get<{ api_keys: ApiKey[] }>("/v1/api-keys", {}, options)).api_keys,
    /**
     * Creates a key that may do `scopes` (default `run` and `read`; `create` registers agents and
     * reads their webhook secrets), within its spend limits if given (`dailySpendCapWei`, a
     * decimal string of wei a UTC day on per-task runs; `allowedListings`, the only listings it may
     * run), confirmed by the wallet signing a SIWE message that names the label, scopes and limits.
     * The key's value is in the answer only.
     */
    create: async (
      label: string,
      options: CallOptions & {
        scopes?: ApiKeyScope[];
        dailySpendCapWei?: string;
        allowedListings?: string[];
      } = {},
    ): Promise<CreatedApiKey> => {
      const session = this.#requireSession();
      const scopes = options.scopes ?? ["run", "read"];
      const limits = {
        daily_spend_cap_wei: options.dailySpendCapWei,
        // Sorted, as the API names them in the message.
        allowed_listings: options.allowedListings && [...new Set(options.allowedListings)].sort(),
      };
      const { challenge } = await this.#get<{ challenge: string }>(
        "/v1/api-keys/challenge",
        {
          format: "siwe",
          label,
          scopes: scopes.join(","),
          daily_spend_cap_wei: limits.daily_spend_cap_wei,
          allowed_listings: limits.allowed_listings?.join(","),
        },
        options,
      );
      const signature = await session.signSiwe(challenge);
      return this.#transport.json({
        method: "POST",
        path: "/v1/api-keys",
        body: { label, scopes, ...limits, challenge, signature },
        ...perCall(options),
      });
    },
    /** Revokes a key: once this answers, the key fails on its next request to any API process. */
    revoke: (keyId: string, options: CallOptions = {}): Promise<ApiKey> =>
      this.#transport.json({
        method: "DELETE",
        path: `/v1/api-keys/${encodeURIComponent(keyId)}`,
        ...perCall(options),
      }),
  };

  async *#watchMyListings(options: CallOptions): AsyncGenerator<CreatorListing[], void, undefined> {
    let response: Response;
    try {
      response = await this.#transport.send({
        method: "GET",
        path: "/v1/creators/me/listings/events",
        ...perCall(options),
      });
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    }
    yield* listingsStreamEvents(response, options.signal);
  }

  #get<T>(path: string, query: Record<string, string | number | undefined>, options: CallOptions) {
    return this.#transport.json<T>({ method: "GET", path, query, ...perCall(options) });
  }

  #requireSession(): WalletSession {
    if (!this.#session)
      throw new TypeError("API keys are managed by a client made with an account");
    return this.#session;
  }
}

function perCall({ signal, timeout }: CallOptions) {
  return { signal, timeout };
}

function authorizationOf(options: ServiceClientOptions, session?: WalletSession): Authorization {
  if (session) return { session };
  if (options.apiKey !== undefined) return { apiKey: options.apiKey };
  if (options.token !== undefined) return { token: options.token };
  return { none: true };
}
