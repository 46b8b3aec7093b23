// Every endpoint of the API, described with the schemas its route validates requests with and the
// schemas of its answers. openApiDocument.ts turns this list into the OpenAPI document.
import type { z } from "zod/v4";
import { rpcEnvelope } from "../a2a/a2aRpc.ts";
import type { ErrorCode } from "../errors.ts";
import { executeBody } from "../execution/executeRequest.ts";
import { mcpPayload } from "../mcp/mcpMessages.ts";

import { createKeyRequest, keyChallengeQuery } from "../routes/apiKeys.ts";
import { challengeQuery, tokenRequest } from "../routes/auth.ts";
import { listQuery } from "../routes/credentials.ts";
import { executionLimitBody, searchQuery } from "../routes/listings.ts";
import { replyBody, reviewBody, reviewPageQuery } from "../routes/reviews.ts";
import { toolQuery } from "../routes/tools.ts";
import { runListQuery } from "../runs/runListQuery.ts";
import { createWebhookRequest, deliveryListQuery } from "../webhooks/webhookRequests.ts";
import { manifest, publicManifest } from "./manifestSchema.ts";
import * as answers from "./responseSchemas.ts";

/** The charging rule as renters read it (docs/execution.md, "The charging rule"). */
const CHARGING_RULE =
  "Per task, output delivered is charged and nothing delivered is not: a run is charged its " +
  "admission price (or the current price if lower) when any of its output reached you, a streamed " +
  "delta or a completed run's output, whether it then completed or failed; a run that fails " +
  "before any output costs nothing and answers no agent output. `cost_wei` is what was debited.";

/** `bearer`: an API key or a wallet JWT; `wallet`: a wallet JWT only; `none`: no authentication. */
export type Security = "bearer" | "wallet" | "none";

export type Operation = {
  method: "get" | "post" | "put" | "delete";
  /** OpenAPI's form: `/v1/listings/{id}`. */
  path: string;
  tag: keyof typeof TAGS;
  summary: string;
  description?: string;
  security: Security;
  pathParameters?: Record<string, string>;
  query?: z.ZodType;
  body?: z.ZodType;
  idempotent?: boolean;
  answer: {
    status: number;
    description: string;
    schema?: z.ZodType;
    eventStream?: boolean;
    /** Headers of the answer besides the rate limit's, with their descriptions. */
    headers?: Record<string, string>;
  };
  errors: ErrorCode[];
};

/** The groups of operations, in the reference's order. */
export const TAGS = {
  Authentication: "Wallet sign-in: a challenge signed with the wallet, exchanged for a JWT",
  "API keys": "A wallet's API keys, managed with its JWT",
  Marketplace: "Where to pay: the chain and the contract",
  Listings: "The catalogue of agents listed on-chain",
  Creators: "A creator's own listings and their books, as the indexer keeps them",
  Credentials: "Rental credentials, checked on-chain",
  Agents: "Registering agents from their manifests",
  Execution: "Running tasks on rented agents",
  Webhooks: "Where a wallet's events are delivered: its runs, its credentials, its listings",
} as const;

const LISTING_ID = "API listing id: `lst_` and 64 hex digits";
const WEBHOOK_ID = "The endpoint's id (`whk_…`)";
/** What any request may be answered besides its own failures. */
const ANY_REQUEST: ErrorCode[] = ["rate_limit_exceeded", "internal_error", "service_unavailable"];
/** What any authenticated request may be answered besides its own failures. */
const AUTHENTICATED: ErrorCode[] = [
  "unauthorized",
  "invalid_api_key",
  "jwt_expired",
  "forbidden",
  ...ANY_REQUEST,
];
/** What a request naming a listing may be answered when its id is malformed or names none. */
const NAMED_LISTING: ErrorCode[] = ["invalid_listing_id", "listing_not_found"];
/** What a task sent to an agent may be answered, streamed or not. */
const EXECUTION_ERRORS: ErrorCode[] = [
  "invalid_request",
  ...NAMED_LISTING,
  "credential_not_found",
  "credential_expired",
  "credential_revoked",
  "insufficient_balance",
  "listing_paused",
  "listing_closed",
  "payload_too_large",
  ...AUTHENTICATED,
];

export const OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/auth/challenge",
    tag: "Authentication",
    summary: "Get a sign-in challenge",
    description:
      "A challenge valid 60 seconds, to sign with the wallet (EIP-191 personal_sign). With " +
      "`format=siwe`, an EIP-4361 (Sign-In with Ethereum) message naming this API's domain and " +
      "URI, the chain, a nonce and its expiry; clients should sign only a message naming the API " +
      "they mean to sign in to.",
    security: "none",
    query: challengeQuery,
    answer: { status: 200, description: "The challenge", schema: answers.challenge },
    errors: ["invalid_request", ...ANY_REQUEST],
  },
  {
    method: "post",
    path: "/v1/auth/token",
    tag: "Authentication",
    summary: "Exchange a signed challenge for a JWT",
    description:
      "`challenge` is the challenge or the SIWE message as issued. The JWT is valid one hour; " +
      "clients must not use it past `expires_at`.",
    security: "none",
    body: tokenRequest,
    answer: { status: 200, description: "The wallet's token", schema: answers.token },
    errors: ["invalid_request", "invalid_signature", ...ANY_REQUEST],
  },
  {
    method: "get",
    path: "/v1/api-keys/challenge",
    tag: "API keys",
    summary: "Get a key-creation challenge",
    description:
      "With `format=siwe`, an EIP-4361 message naming the key's label and scopes, to sign as is. " +
      "Otherwise sign `<challenge>:<label>`, which creates a key with the scopes `run` and `read`.",
    security: "wallet",
    query: keyChallengeQuery,
    answer: { status: 200, description: "The challenge", schema: answers.challenge },
    errors: [...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/v1/api-keys",
    tag: "API keys",
    summary: "Create an API key",
    description:
      "The key is in this answer only; it is stored hashed. `scopes` (default `run`, `read`) must " +
      "be those the signed SIWE message names.",
    security: "wallet",
    body: createKeyRequest,
    answer: { status: 201, description: "The new key", schema: answers.createdApiKey },
    errors: ["invalid_request", "invalid_signature", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/api-keys",
    tag: "API keys",
    summary: "List the wallet's API keys",
    security: "wallet",
    answer: { status: 200, description: "Newest first", schema: answers.apiKeyList },
    errors: [...AUTHENTICATED],
  },
  {
    method: "delete",
    path: "/v1/api-keys/{id}",
    tag: "API keys",
    summary: "Revoke an API key",
    description: "Answered once every API process refuses the key.",
    security: "wallet",
    pathParameters: { id: "The key's id" },
    answer: { status: 200, description: "The revoked key", schema: answers.apiKey },
    errors: ["not_found", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/marketplace",
    tag: "Marketplace",
    summary: "The chain, contract and protocol state",
    description: "The protocol's fee and pause are read from the chain at the latest block.",
    security: "none",
    answer: { status: 200, description: "Where to pay", schema: answers.marketplace },
    errors: ANY_REQUEST,
  },
  {
    method: "get",
    path: "/v1/marketplace/abi",
    tag: "Marketplace",
    summary: "The contract's ABI",
    security: "none",
    answer: { status: 200, description: "The ABI", schema: answers.abi },
    errors: ["rate_limit_exceeded", "internal_error"],
  },
  {
    method: "get",
    path: "/v1/indexer",
    tag: "Marketplace",
    summary: "How current the projections are",
    description:
      "Answers read from the projections (listings, credentials, creators' views) carry `X-Indexed-Block` and, while not current, `X-Indexer-Behind` (seconds, or `unknown`).",
    security: "none",
    answer: { status: 200, description: "The indexer's lag", schema: answers.indexer },
    errors: ANY_REQUEST,
  },
  {
    method: "get",
    path: "/v1/listings",
    tag: "Listings",
    summary: "Search listings",
    security: "bearer",
    query: searchQuery,
    answer: { status: 200, description: "A page of listings", schema: answers.searchResult },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/listings/{id}",
    tag: "Listings",
    summary: "Get a listing",
    security: "bearer",
    pathParameters: { id: LISTING_ID },
    answer: { status: 200, description: "The listing", schema: answers.listing },
    errors: ["listing_not_found", ...AUTHENTICATED],
  },
  {
    method: "put",
    path: "/v1/listings/{id}/execution-limit",
    tag: "Listings",
    summary: "Set a listing's execution rate limit (its creator only)",
    security: "bearer",
    pathParameters: { id: LISTING_ID },
    body: executionLimitBody,
    answer: { status: 200, description: "The limit set", schema: answers.executionLimit },
    errors: ["invalid_request", ...NAMED_LISTING, ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/listings/{id}/reviews",
    tag: "Listings",
    summary: "List a listing's reviews",
    description: "The last written (or edited) first.",
    security: "bearer",
    pathParameters: { id: LISTING_ID },
    query: reviewPageQuery,
    answer: { status: 200, description: "A page of reviews", schema: answers.reviewPage },
    errors: ["invalid_request", ...NAMED_LISTING, ...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/v1/listings/{id}/reviews",
    tag: "Listings",
    summary: "Review a listing, or edit the caller's review",
    description:
      "One review per wallet and listing: posting again replaces its rating and text. Only a wallet that holds or held a credential for the listing and completed a run on it may review it, never its creator. Reviews, edits and replies count against a budget of a few per minute per wallet.",
    security: "bearer",
    pathParameters: { id: LISTING_ID },
    body: reviewBody,
    answer: { status: 200, description: "The review as saved", schema: answers.review },
    errors: ["invalid_request", ...NAMED_LISTING, "review_not_allowed", ...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/v1/listings/{id}/reviews/{review_id}/reply",
    tag: "Listings",
    summary: "Reply to a review (the listing's creator only, once)",
    security: "bearer",
    pathParameters: { id: LISTING_ID, review_id: "Review id: `rev_` and 24 hex digits" },
    body: replyBody,
    answer: { status: 200, description: "The review with its reply", schema: answers.review },
    errors: [
      "invalid_request",
      ...NAMED_LISTING,
      "review_not_found",
      "review_already_replied",
      ...AUTHENTICATED,
    ],
  },
  {
    method: "get",
    path: "/v1/credentials",
    tag: "Credentials",
    summary: "List the caller's rental credentials",
    security: "bearer",
    query: listQuery,
    answer: { status: 200, description: "A page of credentials", schema: answers.credentialList },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/credentials/{listing_id}",
    tag: "Credentials",
    summary: "Verify the caller's credential for a listing, on-chain",
    security: "bearer",
    pathParameters: { listing_id: LISTING_ID },
    answer: { status: 200, description: "What the chain says", schema: answers.credentialCheck },
    errors: [...NAMED_LISTING, ...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/v1/agents",
    tag: "Agents",
    summary: "Register an agent from its manifest",
    description: "Asynchronous: poll the job. Rejections are reported through the job.",
    security: "bearer",
    body: manifest,
    idempotent: true,
    answer: { status: 202, description: "The registration's job", schema: answers.jobAccepted },
    errors: ["invalid_request", "payload_too_large", ...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/v1/agents/{agent_id}/versions",
    tag: "Agents",
    summary: "Register a new version of an agent (its creator only)",
    description:
      "Asynchronous, validated as a registration is; the name stays the agent's. The job's result gives the arguments of `updateListing`: search, detail and runs switch to the version once the listing's on-chain metadata_uri names it. Earlier versions stay readable by content id.",
    security: "bearer",
    pathParameters: { agent_id: "The registration's agent id, or the API listing id" },
    body: manifest,
    idempotent: true,
    answer: { status: 202, description: "The version's job", schema: answers.jobAccepted },
    errors: ["invalid_request", "payload_too_large", "not_found", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/jobs/{job_id}",
    tag: "Agents",
    summary: "Get a registration or version job",
    security: "bearer",
    pathParameters: { job_id: "The job's id (`job_…`)" },
    answer: { status: 200, description: "The job", schema: answers.job },
    errors: ["job_not_found", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/manifests/{cid}",
    tag: "Agents",
    summary: "Get a registered agent's public manifest by content id",
    security: "bearer",
    pathParameters: { cid: "The manifest's content id (CIDv1)" },
    answer: { status: 200, description: "The manifest's exact bytes", schema: publicManifest },
    errors: ["not_found", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/ipfs/{cid}",
    tag: "Agents",
    summary: "Get a public manifest by content id, as an IPFS gateway does",
    description: "Served only when its bytes still hash to the id; `metadata_uri` resolves here.",
    security: "none",
    pathParameters: { cid: "The manifest's content id (CIDv1)" },
    answer: { status: 200, description: "The manifest's exact bytes", schema: publicManifest },
    errors: ["not_found", ...ANY_REQUEST],
  },
  {
    method: "post",
    path: "/v1/execute",
    tag: "Execution",
    summary: "Run a task",
    description:
      "Needs a valid rental credential, checked on-chain. A run the agent fails is a 200 with " +
      '`status: "failed"`. ' +
      CHARGING_RULE,
    security: "bearer",
    body: executeBody,
    idempotent: true,
    answer: { status: 200, description: "The run's result", schema: answers.runResult },
    errors: EXECUTION_ERRORS,
  },
  {
    method: "post",
    path: "/v1/execute/stream",
    tag: "Execution",
    summary: "Run a task, streaming its output",
    description:
      "Server-Sent Events: `output` events (`{delta}`), then one `done` event with the run's " +
      "result fields (and the partial `output` of a failed run: what was streamed). An `error` " +
      "event carries an error object when the end of the run cannot be told. " +
      CHARGING_RULE,
    security: "bearer",
    body: executeBody,
    idempotent: true,
    answer: { status: 200, description: "The event stream", eventStream: true },
    errors: EXECUTION_ERRORS,
  },
  {
    method: "get",
    path: "/v1/creators/me/listings",
    tag: "Creators",
    summary: "The caller's listings as their creator",
    description:
      "Every listing the caller's wallet created, in any status, the last published first: " +
      "purchases, escrow, earnings, withdrawals, runs and success rate from the indexer.",
    security: "bearer",
    answer: { status: 200, description: "The listings", schema: answers.creatorListings },
    errors: AUTHENTICATED,
  },
  {
    method: "get",
    path: "/v1/creators/me/listings/events",
    tag: "Creators",
    summary: "Follow the caller's listings as they change",
    description:
      "Server-Sent Events: a `listings` event with the body of `GET /v1/creators/me/listings` at " +
      "once, and again whenever a newly indexed block (or a registration) changes it; comment " +
      "lines keep an idle stream open. An `error` event carries an error object when the " +
      "listings can no longer be read, when the JWT the stream was opened with expires " +
      "(`jwt_expired`) or when its API key is revoked (`invalid_api_key`); the stream then ends " +
      "and may be opened again with a valid credential. A wallet holds at most 5 such streams " +
      "open on one API process (429 `rate_limit_exceeded` beyond), and the process at most " +
      "1,000 (503 `service_unavailable`), both with `Retry-After`.",
    security: "bearer",
    answer: { status: 200, description: "The event stream", eventStream: true },
    errors: AUTHENTICATED,
  },
  {
    method: "get",
    path: "/v1/creators/me/runs",
    tag: "Creators",
    summary: "The runs of the caller's listings, with daily totals",
    description:
      "The runs of every listing the caller's wallet created, any renter's, newest first, paged " +
      "like `GET /v1/runs` and with the same filters; never a renter's input or output. `daily` " +
      "totals every UTC day of the window (`since` to `until`, by default the 30 days before " +
      "now, at most 366 days) for the listings (or `agent_id`), whatever `status` or `cursor` say.",
    security: "bearer",
    query: runListQuery,
    answer: {
      status: 200,
      description: "A page of runs and the daily totals",
      schema: answers.creatorRunList,
    },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/v1/runs",
    tag: "Execution",
    summary: "Start a task without waiting for it",
    description:
      "Takes the body of `POST /v1/execute` and admits the run under the same rules (credential " +
      "checked on-chain, rate limits, `Idempotency-Key`), then answers at once; `GET " +
      "/v1/runs/{run_id}` (the `Location`) gives its result once it is final. " +
      CHARGING_RULE,
    security: "bearer",
    body: executeBody,
    idempotent: true,
    answer: {
      status: 202,
      description: "The run, admitted",
      schema: answers.runAccepted,
      headers: { Location: "The run's address: `/v1/runs/{run_id}`" },
    },
    errors: EXECUTION_ERRORS,
  },
  {
    method: "get",
    path: "/v1/runs",
    tag: "Execution",
    summary: "List the caller's runs",
    description:
      "Newest first, without inputs or outputs. Pages by cursor: runs started while paging " +
      "neither repeat nor skip a run of the pages after.",
    security: "bearer",
    query: runListQuery,
    answer: { status: 200, description: "A page of runs", schema: answers.runList },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}",
    tag: "Execution",
    summary: "Get one of the caller's runs",
    security: "bearer",
    pathParameters: { run_id: "The run's id (`run_…`)" },
    answer: { status: 200, description: "The run", schema: answers.run },
    errors: ["run_not_found", ...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/v1/webhooks",
    tag: "Webhooks",
    summary: "Register a webhook endpoint",
    description:
      "Delivers the caller's events there (see the document's `webhooks`): `run.completed` and " +
      "`run.failed` of its runs, `credential.low_balance` and `credential.expiring` of its " +
      "credentials, `listing.purchased` and `listing.reviewed` of the listings it created. Each " +
      "delivery is a Standard Webhooks POST signed with the endpoint's `secret`, shown in this " +
      "answer only; it is retried with exponential backoff for 24 hours until answered 2xx. A " +
      "wallet holds at most 10 endpoints.",
    security: "bearer",
    body: createWebhookRequest,
    answer: {
      status: 201,
      description: "The endpoint, with its secret",
      schema: answers.createdWebhookEndpoint,
    },
    errors: ["invalid_request", "payload_too_large", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/webhooks",
    tag: "Webhooks",
    summary: "List the caller's webhook endpoints",
    security: "bearer",
    answer: { status: 200, description: "The endpoints", schema: answers.webhookEndpointList },
    errors: AUTHENTICATED,
  },
  {
    method: "get",
    path: "/v1/webhooks/{id}",
    tag: "Webhooks",
    summary: "Get one of the caller's webhook endpoints",
    security: "bearer",
    pathParameters: { id: WEBHOOK_ID },
    answer: { status: 200, description: "The endpoint", schema: answers.webhookEndpoint },
    errors: ["not_found", ...AUTHENTICATED],
  },
  {
    method: "delete",
    path: "/v1/webhooks/{id}",
    tag: "Webhooks",
    summary: "Delete one of the caller's webhook endpoints",
    description: "Nothing more is delivered there; its deliveries go with it.",
    security: "bearer",
    pathParameters: { id: WEBHOOK_ID },
    answer: { status: 200, description: "The endpoint deleted", schema: answers.webhookEndpoint },
    errors: ["not_found", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/webhooks/{id}/deliveries",
    tag: "Webhooks",
    summary: "An endpoint's delivery log",
    description:
      "Its deliveries, newest first, paged by cursor as `GET /v1/runs` is: each one's event, " +
      "attempts and where it stands, never its body.",
    security: "bearer",
    pathParameters: { id: WEBHOOK_ID },
    query: deliveryListQuery,
    answer: {
      status: 200,
      description: "A page of deliveries",
      schema: answers.webhookDeliveryPage,
    },
    errors: ["invalid_request", "not_found", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/tools",
    tag: "Execution",
    summary: "Each agent the caller may run as a function-calling tool",
    description:
      "One tool per listing the caller holds a valid credential for, in the vendor's form, typed " +
      "by the agent's input schema: a call's arguments (`agent_id`, fixed to the agent's id, " +
      "`task` and `input`) are the `POST /v1/execute` body that runs it.",
    security: "bearer",
    query: toolQuery,
    answer: { status: 200, description: "The tools", schema: answers.agentTools },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/v1/tools/execute",
    tag: "Execution",
    summary: "The execute endpoint as a function-calling tool definition",
    security: "bearer",
    query: toolQuery,
    answer: { status: 200, description: "The tool definition", schema: answers.toolDefinition },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  {
    method: "post",
    path: "/mcp",
    tag: "Execution",
    summary: "The Model Context Protocol server",
    description:
      "MCP over Streamable HTTP (docs/mcp.md), stateless: `tools/list` lists one tool per " +
      "listing the caller holds a valid credential for, and `search_listings` and `get_listing`, " +
      "which cost nothing; `tools/call` runs a task as `POST /v1/execute` does. Send `Accept: " +
      "application/json, text/event-stream`. The answer is JSON, or a stream of events " +
      "(`text/event-stream`) when a request asks for progress (`_meta.progressToken`), which " +
      "carries the output's deltas as `notifications/progress`. A body that is not JSON-RPC is " +
      "answered 400 with a JSON-RPC error, and `GET` and `DELETE` 405. " +
      CHARGING_RULE,
    security: "bearer",
    body: mcpPayload,
    answer: {
      status: 200,
      description: "The JSON-RPC answers",
      schema: answers.mcpAnswer,
      headers: {
        "Mcp-Session-Id":
          "On the answer to `initialize`: send it back on later requests, so that a retried " +
          "`tools/call` (the same request id) is the same run",
      },
    },
    errors: ["payload_too_large", ...AUTHENTICATED],
  },
  {
    method: "get",
    path: "/a2a/{id}/.well-known/agent-card.json",
    tag: "Execution",
    summary: "A listing's A2A agent card",
    description:
      "The listing as an agent of the A2A protocol 0.3 (docs/a2a.md): its skill, price, the " +
      "bearer scheme and where to send messages. Public, like the catalogue it repeats.",
    security: "none",
    pathParameters: { id: LISTING_ID },
    answer: { status: 200, description: "The agent card", schema: answers.a2aAgentCard },
    errors: ["listing_not_found", ...ANY_REQUEST],
  },
  {
    method: "post",
    path: "/a2a/{id}",
    tag: "Execution",
    summary: "A2A JSON-RPC: send a message to a listing's agent",
    description:
      "A2A 0.3 over JSON-RPC 2.0 (docs/a2a.md). `message/send` runs the message's task as " +
      "`POST /v1/execute` does (its text parts the task, its data part the input) and answers the " +
      "task: its id is the run id, its artifact the output, its metadata the run's `cost_wei`. " +
      "`message/stream` answers `text/event-stream`: the task, the output's deltas as artifact " +
      "updates, then the final status. `tasks/get` reads any run of the caller's. A refusal is " +
      "the JSON-RPC error -32000, its message beginning with the API's error code and its `data` " +
      "the API's error object. An API key needs the `run` scope. " +
      CHARGING_RULE,
    security: "bearer",
    pathParameters: { id: LISTING_ID },
    body: rpcEnvelope,
    answer: { status: 200, description: "The JSON-RPC answer", schema: answers.a2aAnswer },
    errors: ["payload_too_large", ...AUTHENTICATED],
  },
];

/** A call the service makes: an event delivered to a wallet's endpoint, or a run to an agent. */
export type OutboundCall = {
  summary: string;
  description: string;
  body: z.ZodType;
  /** What the receiver's answer does. */
  answers: Record<string, string>;
};

const DELIVERY =
  "POSTed to each endpoint of the wallet subscribed to it, `{type, timestamp, data}`, signed " +
  "with Standard Webhooks headers under the endpoint's secret (`new Webhook(secret).verify(body, " +
  "headers)` in the `standardwebhooks` package, on the raw body). `webhook-id` is the same at " +
  "every attempt of a delivery. A 2xx answer delivers it; any other status, or none within 10 s, " +
  "retries it with exponential backoff for 24 hours; the answer's body is never read.";
const DELIVERED = { "2XX": "Delivered", default: "Retried later" };

/** Every call the service makes, as the document's `webhooks` describe them (docs/webhooks.md). */
export const OUTBOUND_CALLS: Record<string, OutboundCall> = {
  "run.completed": {
    summary: "One of the wallet's runs completed",
    description: `\`data\` is the run as \`GET /v1/runs/{run_id}\` shows it, once its answer is final. ${DELIVERY}`,
    body: answers.webhookBodies.run,
    answers: DELIVERED,
  },
  "run.failed": {
    summary: "One of the wallet's runs failed",
    description: `\`data\` is the run, with its \`failure\`. ${DELIVERY}`,
    body: answers.webhookBodies.run,
    answers: DELIVERED,
  },
  "credential.low_balance": {
    summary: "A per-task balance fell below the price of the next run",
    description: `Once per crossing: a top-up above the price and another crossing announce it again. ${DELIVERY}`,
    body: answers.webhookBodies.credential,
    answers: DELIVERED,
  },
  "credential.expiring": {
    summary: "A subscription expires within three days",
    description: `Once per expiry, by the chain's time. ${DELIVERY}`,
    body: answers.webhookBodies.credential,
    answers: DELIVERED,
  },
  "listing.purchased": {
    summary: "A listing the wallet created was bought",
    description: `Within seconds of the purchase's indexing. ${DELIVERY}`,
    body: answers.webhookBodies.purchase,
    answers: DELIVERED,
  },
  "listing.reviewed": {
    summary: "A listing the wallet created was reviewed, or a review of it edited",
    description: DELIVERY,
    body: answers.webhookBodies.review,
    answers: DELIVERED,
  },
  entrypoint_url: {
    summary: "A run of a connected agent",
    description:
      "POSTed to the agent's `entrypoint_url` once per run, never again, signed with Standard " +
      "Webhooks headers (`webhook-id` the run id) under the agent's secret, " +
      '`result.webhook_secret` of its registration job (docs/execution.md, "Connected agents").',
    body: answers.agentCall,
    answers: {
      "200":
        "`application/json` `{output}`, or `text/event-stream` of `{delta}` events and an optional final `{output}`; the output must match the listing's `output_schema`",
      default: "The run fails",
    },
  },
};
