// What the API answers, as schemas: the OpenAPI document describes responses with these, and the
// contract test holds every real answer to them.
import { z } from "zod/v4";
import { API_KEY_SCOPES } from "../../lib/auth/apiKeyScopes.ts";
import {
  CATEGORIES,
  CREDENTIAL_FINALITIES,
  CREDENTIAL_STATUSES,
  LISTING_STATUSES,
  RENTAL_MODELS,
} from "../../lib/marketplace/vocabulary.ts";
import { DELIVERY_STATUSES, WEBHOOK_EVENTS } from "../../lib/webhooks/webhookEvents.ts";
import { ERROR_STATUS } from "../http/errors.ts";

const isoTime = z.string().describe("ISO 8601 timestamp");
const apiListingId = z
  .string()
  .regex(/^lst_[0-9a-f]{64}$/)
  .describe("API listing id");
const onChainId = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .describe("0x-prefixed 32-byte hex");
const wei = z.int().min(0).describe("An amount in wei, as a JSON integer (may exceed 2^53)");

export const errorObject = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]),
      message: z.string(),
      status: z.int(),
      on_chain_error: z
        .object({ contract: z.string(), error: z.string().describe("Solidity custom error") })
        .optional(),
    }),
  })
  .meta({ id: "Error" });

export const listingSummary = z
  .object({
    id: apiListingId,
    title: z.string(),
    description: z.string().describe("Shortened in search results"),
    category: z.array(z.enum(CATEGORIES)),
    rental_model: z.enum(RENTAL_MODELS),
    price_eth: z
      .number()
      .describe(
        "Price in ETH; per run, per purchase or per period. Written exactly from wei, up to 18 decimals",
      ),
    run_count: z.int().min(0),
    success_rate: z.number().min(0).max(1),
    creator: z.object({ id: z.string(), display_name: z.string(), listing_count: z.int() }),
    rating: z.number().min(0).max(5).describe("The reviews' average rating; 0 without reviews"),
    review_count: z.int().min(0),
    last_updated: isoTime,
    sample_output: z.array(z.string()),
  })
  .meta({ id: "ListingSummary" });

const weiString = z.string().regex(/^\d+$/).describe("An amount in wei, as a decimal string");

const purchaseCall = z
  .object({
    function_name: z.enum([
      "purchaseOneTime",
      "purchaseSubscription",
      "renewSubscription",
      "purchasePerQuery",
      "topUpBalance",
    ]),
    args: z
      .array(z.string())
      .describe(
        "The call's arguments in order: the on-chain listing id, then integers as decimals",
      ),
    value: weiString.describe("The ETH to send with the call, in wei, as a decimal string"),
    duration_seconds: z.int().optional().describe("Subscriptions: the length bought"),
    runs: z.int().optional().describe("Per-task: the runs the deposit pays for at today's price"),
  })
  .meta({ id: "PurchaseCall" });

export const listing = listingSummary
  .extend({
    published_at: isoTime,
    status: z.enum(LISTING_STATUSES),
    on_chain_id: onChainId,
    metadata_uri: z.string().describe("The listing's on-chain metadata_uri"),
    manifest_status: z
      .enum(["current", "unrecognized"])
      .describe(
        "`unrecognized`: the on-chain metadata_uri names no registered version of the agent; the last version it named is shown",
      ),
    shown_metadata_uri: z
      .string()
      .describe(
        "The version whose title, description, category and sample output are shown (its manifest at GET /ipfs/{cid}); metadata_uri when current",
      ),
    purchase: z
      .object({
        chain_id: z.int(),
        contract_address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
        rental_model: z.enum(RENTAL_MODELS),
        options: z.array(purchaseCall).describe("Calls that buy a credential, at today's price"),
        extend_options: z
          .array(purchaseCall)
          .describe(
            "Calls that renew a subscription or top up a per-task balance; none for One-Time",
          ),
      })
      .describe("What a wallet calls on the marketplace contract to rent this listing"),
  })
  .meta({ id: "Listing" });

export const searchResult = z
  .object({
    listings: z.array(listingSummary),
    total: z.int().min(0),
    limit: z.int(),
    offset: z.int(),
  })
  .meta({ id: "SearchResult" });

export const creatorListings = z
  .object({
    listings: z.array(
      z.object({
        id: apiListingId,
        on_chain_id: onChainId,
        title: z
          .string()
          .nullable()
          .describe("Null for a listing whose agent this API never registered"),
        status: z.enum(LISTING_STATUSES),
        rental_model: z.enum(RENTAL_MODELS),
        price_wei: weiString.describe("Per purchase, per 30 days or per task, in wei"),
        purchases: z.int().min(0).describe("First purchases, renewals and top-ups"),
        escrow_wei: weiString.describe("What the creator may withdraw now"),
        earned_wei: weiString.describe("Every payment's share for the creator, ever"),
        withdrawn_wei: weiString.describe("What the creator withdrew"),
        run_count: z.int().min(0),
        success_rate: z.number().min(0).max(1),
      }),
    ),
  })
  .meta({ id: "CreatorListings" });

export const review = z
  .object({
    id: z.string().regex(/^rev_[0-9a-f]{24}$/),
    listing_id: apiListingId,
    wallet: z.string().describe("The reviewer's wallet, lowercase"),
    rating: z.int().min(1).max(5),
    text: z.string(),
    created_at: isoTime,
    updated_at: isoTime.describe("The last edit; equal to `created_at` until then"),
    reply: z
      .object({ text: z.string(), created_at: isoTime })
      .nullable()
      .describe("The listing creator's reply"),
  })
  .meta({ id: "Review" });

export const reviewPage = z
  .object({
    reviews: z.array(review),
    total: z.int().min(0),
    limit: z.int(),
    offset: z.int(),
  })
  .meta({ id: "ReviewPage" });

export const executionLimit = z.object({ listing_id: apiListingId, requests_per_minute: z.int() });

export const credentialList = z
  .object({
    credentials: z.array(
      z.object({
        listing_id: apiListingId,
        listing_title: z.string(),
        rental_model: z.enum(RENTAL_MODELS),
        status: z.enum(CREDENTIAL_STATUSES),
        purchased_at: isoTime,
        expires_at: isoTime.nullable().describe("Null for One-Time"),
      }),
    ),
    total: z.int().min(0),
  })
  .meta({ id: "CredentialList" });

export const credentialCheck = z
  .union([
    z.object({
      listing_id: apiListingId,
      valid: z.literal(false),
      status: z.literal("not_found"),
      on_chain_verified: z.literal(false),
    }),
    z.object({
      listing_id: apiListingId,
      rental_model: z.enum(RENTAL_MODELS),
      status: z.literal("active"),
      valid: z.literal(true),
      finality: z
        .enum(CREDENTIAL_FINALITIES)
        .describe(
          "Only when valid: the deepest block tag the credential is valid at, `finalized` when " +
            "valid at the finalized and the safe block, else `safe` when valid at the safe block, " +
            "else `latest`",
        ),
      on_chain_listing_id: onChainId,
      on_chain_verified: z.literal(true),
    }),
    z.object({
      listing_id: apiListingId,
      rental_model: z.enum(RENTAL_MODELS),
      status: z.enum(CREDENTIAL_STATUSES).exclude(["active"]),
      valid: z.literal(false),
      expired_at: isoTime.optional(),
      on_chain_listing_id: onChainId,
      on_chain_verified: z.literal(true),
    }),
  ])
  .meta({ id: "CredentialCheck" });

const runStatus = z.enum(["waiting", "queued", "running", "completed", "failed"]);

/** Present when `output` is the copy a run's row keeps of a longer output (docs/execution.md). */
const keptOutput = {
  output_truncated: z
    .literal(true)
    .optional()
    .describe("`output` is the kept copy of a longer output: its first part, as a string"),
  output_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe("SHA-256 of the whole output's JSON text, when `output` is the kept copy"),
};

export const runResult = z
  .object({
    run_id: z.string().regex(/^run_/),
    agent_id: apiListingId,
    status: z.enum(["completed", "failed"]),
    output: z.unknown().describe("Shaped by the agent's output schema"),
    cost_wei: wei,
    duration_ms: z.int().min(0),
    ...keptOutput,
  })
  .meta({ id: "RunResult" });

export const run = z
  .object({
    run_id: z.string().regex(/^run_/),
    agent_id: apiListingId,
    status: runStatus,
    output: z.unknown(),
    cost_wei: wei,
    duration_ms: z.int().min(0).nullable(),
    failure: z.string().optional().describe("Why a failed run failed"),
    ...keptOutput,
  })
  .meta({ id: "Run" });

const bytes32 = z.string().regex(/^0x[0-9a-f]{64}$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const runReceipt = z
  .object({
    receipt: z.object({
      run_id: z.string().regex(/^run_/),
      listing_id: bytes32.describe("The listing's on-chain id"),
      renter: address,
      manifest_cid: z.string(),
      vendor: z.string().describe("Declarative agents' model vendor; empty for connected agents"),
      model: z.string(),
      endpoint_sha256: bytes32.describe("Connected agents' webhook URL digest; zero otherwise"),
      task_sha256: bytes32,
      input_sha256: bytes32,
      output_sha256: bytes32.describe("SHA-256 of the canonical JSON of the output as delivered"),
      input_tokens: z.int().min(0).nullable(),
      output_tokens: z.int().min(0).nullable(),
      started_at_ms: z.int().min(0).nullable(),
      finished_at_ms: z.int().min(0),
      status: runStatus,
      cost_wei: weiString,
    }),
    signature: z
      .string()
      .regex(/^0x[0-9a-f]{130}$/)
      .describe("EIP-712, by the receipts signer"),
    signer: address.describe("Informational: verifiers read the signer from the contract"),
    chain_id: z.int(),
    contract: address,
    leaf: bytes32.describe("The receipt's EIP-712 struct hash"),
    anchor: z
      .object({
        root: bytes32,
        proof: z.array(bytes32),
        transaction: bytes32,
        block: z.int().min(0),
      })
      .nullable()
      .describe("Null until the run's batch is anchored"),
  })
  .meta({ id: "RunReceipt" });

export const runAccepted = z
  .object({ run_id: z.string().regex(/^run_/), status: runStatus })
  .meta({ id: "RunAccepted" });

const runListItem = z.object({
  run_id: z.string().regex(/^run_/),
  agent_id: apiListingId,
  status: runStatus,
  cost_wei: wei,
  duration_ms: z.int().min(0).nullable().describe("Null until the run's answer is final"),
  created_at: isoTime,
});

const nextCursor = z
  .string()
  .nullable()
  .describe("Pass as `cursor` for the next page; null on the last page");

export const runList = z
  .object({ runs: z.array(runListItem), next_cursor: nextCursor })
  .meta({ id: "RunList" });

export const creatorRunList = z
  .object({
    runs: z.array(runListItem),
    next_cursor: nextCursor,
    daily: z
      .array(
        z.object({
          date: z.iso.date().describe("The UTC day, YYYY-MM-DD"),
          runs: z.int().min(0).describe("Runs created that day"),
          failures: z.int().min(0).describe("Of those, the runs that failed"),
          earned_wei: weiString.describe(
            "What the creator earned from them: each indexed debit's price less the protocol fee",
          ),
        }),
      )
      .describe("Every UTC day of the window, oldest first"),
  })
  .meta({ id: "CreatorRunList" });

export const jobAccepted = z.object({
  job_id: z.string().regex(/^job_/),
  status: z.enum(["queued", "completed", "failed"]),
});

export const job = z
  .object({
    job_id: z.string().regex(/^job_/),
    status: z.enum(["queued", "completed", "failed"]),
    result: z
      .object({
        agent_id: z.string(),
        listing_id: apiListingId,
        create_listing: z
          .object({ seed: onChainId, metadata_uri: z.string(), on_chain_listing_id: onChainId })
          .optional()
          .describe("A registration: the arguments of the creator's createListing call"),
        update_listing: z
          .object({
            on_chain_listing_id: onChainId,
            price: z
              .string()
              .regex(/^\d+$/)
              .nullable()
              .describe(
                "The listing's price now, in wei as a decimal string (the creator may send another); null before the listing is indexed",
              ),
            metadata_uri: z.string(),
          })
          .optional()
          .describe("A new version: the arguments of the creator's updateListing call"),
        webhook_secret: z.string().optional().describe("Connected agents: signs webhook calls"),
      })
      .optional(),
    error: z
      .object({
        code: z.enum(["manifest_rejected", "internal_error"]),
        message: z.string(),
        violations: z
          .array(z.object({ field: z.string(), rule: z.string(), message: z.string() }))
          .optional(),
      })
      .optional(),
  })
  .meta({ id: "Job" });

export const challenge = z
  .object({ challenge: z.string(), expires_at: z.int().describe("Unix seconds") })
  .meta({ id: "Challenge" });

export const token = z
  .object({ token: z.string().describe("JWT"), expires_at: z.int().describe("Unix seconds") })
  .meta({ id: "Token" });

export const apiKey = z
  .object({
    id: z.string(),
    label: z.string(),
    scopes: z.array(z.enum(API_KEY_SCOPES)).describe("What the key may do"),
    daily_spend_cap_wei: z
      .string()
      .regex(/^\d+$/)
      .nullable()
      .describe("At most this much wei a UTC day on the per-task runs it starts; null: no cap"),
    allowed_listings: z
      .array(apiListingId)
      .nullable()
      .describe("The only listings it may run; null: any"),
    preview: z.string(),
    created_at: isoTime,
    revoked_at: isoTime.nullable(),
  })
  .meta({ id: "ApiKey" });

export const apiKeyList = z.object({ api_keys: z.array(apiKey) });

export const createdApiKey = apiKey
  .extend({ key: z.string().describe("The key itself: shown in this answer only") })
  .meta({ id: "CreatedApiKey" });

const toolParameters = z.object({
  type: z.literal("object"),
  properties: z.record(z.string(), z.unknown()),
  required: z.array(z.string()),
  additionalProperties: z.boolean().optional(),
});

export const toolDefinition = z
  .union([
    z.object({
      type: z.literal("function"),
      function: z.object({
        name: z.string(),
        description: z.string(),
        parameters: toolParameters,
      }),
    }),
    z.object({ name: z.string(), description: z.string(), input_schema: toolParameters }),
  ])
  .meta({ id: "ToolDefinition" });

export const agentTools = z.object({ tools: z.array(toolDefinition) });

export const marketplace = z
  .object({
    chain_id: z.int(),
    contract_name: z.literal("ServiceMarketplace"),
    contract_address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
    abi_url: z.string().describe("The contract's ABI, as JSON"),
    protocol_fee_basis_points: z.int().min(0).max(1000),
    paused: z.boolean().describe("Paused: no purchases or runs"),
    network: z.enum(["test", "live"]),
  })
  .meta({ id: "Marketplace" });

const blockNumber = z.string().regex(/^\d+$/).nullable();

export const indexer = z
  .object({
    indexed_block: blockNumber.describe("The last block the projections include; null if unknown"),
    chain_head: blockNumber.describe("The chain's head at the last check; null if unknown"),
    behind_blocks: z.int().min(0).nullable(),
    behind_seconds: z.int().min(0).nullable().describe("0 when caught up"),
    current: z
      .boolean()
      .describe("Caught up, or behind for under 3 s, at a check of the last 10 s"),
    checked_at: z.string().nullable(),
  })
  .meta({ id: "IndexerLag" });

export const abi = z.array(z.record(z.string(), z.unknown())).describe("A Solidity JSON ABI");

const jsonRpcAnswer = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.int(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z
      .object({ code: z.int(), message: z.string(), data: z.unknown().optional() })
      .optional(),
  })
  .meta({ id: "JsonRpcAnswer" });

/** A JSON-RPC answer of A2A (`docs/a2a.md`): a task, or an error. */
export const a2aAnswer = jsonRpcAnswer;

const a2aSkill = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()),
  inputModes: z.array(z.string()),
  outputModes: z.array(z.string()),
});

export const a2aAgentCard = z
  .object({
    protocolVersion: z.literal("0.3.0"),
    name: z.string(),
    description: z.string(),
    url: z.string().describe("Where JSON-RPC requests go: `/a2a/{listing_id}`"),
    preferredTransport: z.literal("JSONRPC"),
    version: z.string().describe("The shown version's manifest content id"),
    capabilities: z.object({
      streaming: z.boolean(),
      pushNotifications: z.boolean(),
      stateTransitionHistory: z.boolean(),
    }),
    securitySchemes: z.record(z.string(), z.record(z.string(), z.unknown())),
    security: z.array(z.record(z.string(), z.array(z.string()))),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(a2aSkill),
  })
  .meta({ id: "A2AAgentCard" });

export const mcpAnswer = z
  .union([jsonRpcAnswer, z.array(jsonRpcAnswer)])
  .describe("One JSON-RPC answer per request of the POST, an array for a batch");

export const webhookEndpoint = z
  .object({
    id: z.string().regex(/^whk_[0-9a-f]{24}$/),
    url: z.string().describe("Where the events are POSTed"),
    events: z.array(z.enum(WEBHOOK_EVENTS)).describe("The events delivered there"),
    dropped_events: z
      .int()
      .min(0)
      .describe("Events not delivered there: they came while 10,000 deliveries were pending"),
    created_at: isoTime,
  })
  .meta({ id: "WebhookEndpoint" });

export const createdWebhookEndpoint = webhookEndpoint
  .extend({
    secret: z
      .string()
      .describe(
        "The Standard Webhooks secret (`whsec_…`) the deliveries are signed with: shown in this answer only",
      ),
  })
  .meta({ id: "CreatedWebhookEndpoint" });

export const webhookEndpointList = z
  .object({ webhooks: z.array(webhookEndpoint).describe("Newest first") })
  .meta({ id: "WebhookEndpointList" });

export const webhookDeliveryPage = z
  .object({
    deliveries: z.array(
      z.object({
        id: z
          .string()
          .regex(/^msg_[0-9a-f]{24}$/)
          .describe("The `webhook-id` header of its every attempt"),
        type: z.enum(WEBHOOK_EVENTS),
        status: z
          .enum(DELIVERY_STATUSES)
          .describe(
            "`pending` (its next attempt to come), `sending`, `delivered`, `failed` (given up)",
          ),
        attempts: z.int().min(0),
        last_response_status: z
          .int()
          .nullable()
          .describe("The endpoint's status at the last attempt"),
        last_error: z.string().nullable().describe("Why the last attempt failed"),
        next_attempt_at: isoTime.nullable().describe("While `pending`"),
        delivered_at: isoTime.nullable(),
        created_at: isoTime,
      }),
    ),
    next_cursor: nextCursor,
  })
  .meta({ id: "WebhookDeliveryPage" });

/** What a credential event carries: the credential as `GET /v1/credentials` lists it, and more. */
const credentialEventData = z.object({
  listing_id: apiListingId,
  listing_title: z.string().nullable(),
  rental_model: z.enum(RENTAL_MODELS),
  status: z.enum(CREDENTIAL_STATUSES),
  purchased_at: isoTime,
  expires_at: isoTime.nullable(),
  on_chain_listing_id: onChainId,
  balance_wei: weiString.optional().describe("Per-Task: the balance left"),
  next_run_price_wei: weiString.optional().describe("Per-Task: what the next run costs"),
});

/** What a listing event carries: the listing, and the purchase or review. */
const listingEventData = {
  id: apiListingId,
  title: z.string().nullable(),
};

const eventBody = <T extends z.ZodType>(types: readonly string[], data: T) =>
  z.object({
    type: z.enum(types as [string, ...string[]]),
    timestamp: isoTime.describe("When the event happened"),
    data,
  });

/** The bodies of the deliveries, by event (docs/webhooks.md). */
export const webhookBodies = {
  run: eventBody(["run.completed", "run.failed"], run).meta({ id: "RunEvent" }),
  credential: eventBody(
    ["credential.low_balance", "credential.expiring"],
    credentialEventData,
  ).meta({ id: "CredentialEvent" }),
  purchase: eventBody(
    ["listing.purchased"],
    z.object({
      ...listingEventData,
      rental_model: z.enum(RENTAL_MODELS),
      price_wei: weiString,
      status: z.enum(LISTING_STATUSES),
      purchase: z.object({
        buyer: z.string().describe("The renter's wallet, lowercase"),
        amount_wei: weiString,
        fee_wei: weiString,
        expires_at: isoTime.nullable().describe("Subscriptions only"),
        purchased_at: isoTime.describe("The block's time"),
        transaction_hash: z.string(),
        block_number: z.string().regex(/^\d+$/),
      }),
    }),
  ).meta({ id: "ListingPurchasedEvent" }),
  review: eventBody(["listing.reviewed"], z.object({ ...listingEventData, review })).meta({
    id: "ListingReviewedEvent",
  }),
};

/** The call a connected agent's `entrypoint_url` receives for each run (docs/execution.md). */
export const agentCall = z
  .object({
    run_id: z.string().regex(/^run_/),
    listing_id: apiListingId,
    task: z.string(),
    input: z.unknown().optional().describe("The renter's input, valid against `input_schema`"),
    input_uri: z.string().optional().describe("Instead of `input`, when the renter gave one"),
    deadline: isoTime.describe("When the run ends, whatever the agent is doing"),
  })
  .meta({ id: "AgentCall" });
