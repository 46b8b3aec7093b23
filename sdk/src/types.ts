// The API's resources as the client returns them. Wei amounts are bigint: prices and balances
// pass 2^53 wei (0.009 ETH) easily, beyond what a JSON number keeps exactly.

export type Category = "finance" | "legal" | "coding" | "research" | "sales" | "content";
export type RentalModel = "one_time" | "subscription" | "per_query";
export type ListingStatus = "active" | "paused" | "closed";
export type CredentialStatus = "active" | "expired" | "low_balance" | "revoked";

/**
 * The deepest block tag a valid credential is valid at: `latest` while the blocks that made it valid
 * could still be undone, `safe` once the chain's safe block has them, `finalized` once its
 * finalized block does too.
 */
export type CredentialFinality = "latest" | "safe" | "finalized";

export type ListingSummary = {
  /** `lst_` and the on-chain id's 64 hex digits. */
  id: string;
  title: string;
  /** Shortened in search results; whole in `listings.get`. */
  description: string;
  category: Category[];
  rental_model: RentalModel;
  /**
   * The price in ETH: per run (`per_query`), per purchase (`one_time`) or per period. The API writes
   * it exactly from wei; as a JavaScript number it keeps about 16 significant digits.
   */
  price_eth: number;
  run_count: number;
  /** 0.0 to 1.0: the share of runs completed without error. */
  success_rate: number;
  creator: { id: string; display_name: string; listing_count: number };
  /** The reviews' average, 0.0 to 5.0; 0 without reviews. */
  rating: number;
  review_count: number;
  last_updated: string;
  sample_output: string[];
};

/** One contract call a wallet sends as it is: integers as decimal strings, `value` in wei. */
export type PurchaseCall = {
  function_name:
    | "purchaseOneTime"
    | "purchaseSubscription"
    | "renewSubscription"
    | "purchasePerQuery"
    | "topUpBalance";
  /** In the function's order: the on-chain listing id, then integers as decimal strings. */
  args: string[];
  /** The ETH to send with the call, in wei, as a decimal string. */
  value: string;
  /** Subscriptions: the length bought, in seconds. */
  duration_seconds?: number;
  /** Per-task: the runs the deposit pays for at today's price. */
  runs?: number;
};

export type Listing = ListingSummary & {
  published_at: string;
  status: ListingStatus;
  on_chain_id: string;
  /** The listing's on-chain metadata_uri. */
  metadata_uri: string;
  /** `unrecognized`: the on-chain metadata_uri names no registered version; the last one is shown. */
  manifest_status: "current" | "unrecognized";
  /** The version whose fields are shown; `metadata_uri` when current. */
  shown_metadata_uri: string;
  /** What a wallet calls on the marketplace contract to rent this listing. */
  purchase: {
    chain_id: number;
    contract_address: string;
    rental_model: RentalModel;
    /** Calls that buy a credential, at today's price. */
    options: PurchaseCall[];
    /** Calls that renew a subscription or top up a per-task balance; none for One-Time. */
    extend_options: PurchaseCall[];
  };
};

/** One of the caller's listings as its creator, with the books the indexer keeps for it. */
export type CreatorListing = {
  id: string;
  on_chain_id: string;
  /** Null for a listing whose agent the API never registered. */
  title: string | null;
  status: ListingStatus;
  rental_model: RentalModel;
  price_wei: bigint;
  /** First purchases, renewals and top-ups. */
  purchases: number;
  /** What the creator may withdraw now. */
  escrow_wei: bigint;
  /** Every payment's share for the creator, ever. */
  earned_wei: bigint;
  withdrawn_wei: bigint;
  run_count: number;
  /** 0.0 to 1.0: the share of runs completed without error. */
  success_rate: number;
};

export type SearchParams = {
  q?: string;
  category?: Category;
  rental_model?: RentalModel;
  min_price?: number;
  max_price?: number;
  min_rating?: number;
  sort?: "relevance" | "rating" | "price_asc" | "price_desc" | "newest";
  limit?: number;
  offset?: number;
};

export type SearchResult = {
  listings: ListingSummary[];
  total: number;
  limit: number;
  offset: number;
};

export type Review = {
  /** `rev_` and 24 hex digits. */
  id: string;
  listing_id: string;
  /** The reviewer's wallet, lowercase. */
  wallet: string;
  /** 1 to 5. */
  rating: number;
  text: string;
  created_at: string;
  /** The last edit; equal to `created_at` until then. */
  updated_at: string;
  /** The listing creator's one reply. */
  reply: { text: string; created_at: string } | null;
};

/** A review: rating 1 to 5, text of 1 to 2,000 characters without control characters. */
export type ReviewRequest = { rating: number; text: string };

export type ReviewPage = { reviews: Review[]; total: number; limit: number; offset: number };

export type PageParams = { limit?: number; offset?: number };

export type Credential = {
  listing_id: string;
  listing_title: string;
  rental_model: RentalModel;
  status: CredentialStatus;
  purchased_at: string;
  /** Null for One-Time credentials. */
  expires_at: string | null;
};

export type CredentialList = { credentials: Credential[]; total: number };

export type CredentialListParams = { status?: CredentialStatus; limit?: number; offset?: number };

/** What `credentials.verify` finds on-chain, at the latest block, for the caller and a listing. */
export type CredentialCheck =
  | {
      listing_id: string;
      valid: false;
      status: "not_found";
      on_chain_verified: false;
    }
  | {
      listing_id: string;
      rental_model: RentalModel;
      status: "active";
      valid: true;
      /**
       * How deep in the chain the credential is valid: `finalized` when valid at the finalized and
       * the safe block, else `safe` when valid at the safe block, else `latest`. Each is judged at the
       * latest block's time. Only in a valid answer.
       */
      finality: CredentialFinality;
      on_chain_listing_id: string;
      on_chain_verified: true;
    }
  | {
      listing_id: string;
      rental_model: RentalModel;
      status: Exclude<CredentialStatus, "active">;
      valid: false;
      /** Present when the subscription expired. */
      expired_at?: string;
      on_chain_listing_id: string;
      on_chain_verified: true;
    };

export type ExecuteRequest = {
  /** The listing id of the rented agent. */
  agent_id: string;
  task: string;
  input?: string | Record<string, unknown>;
  /** A file's permanent-storage or IPFS URI, instead of `input`. */
  input_uri?: string;
  priority?: "standard" | "priority";
  timeout_seconds?: number;
  /** The most this run may cost, in wei as a decimal string: a higher price is refused (403). */
  max_cost_wei?: string;
};

export type RunResult = {
  run_id: string;
  agent_id: string;
  status: "completed" | "failed";
  /** Shaped by the agent's output schema. */
  output: unknown;
  /** Wei debited from the Per-Task balance for this run; 0n for One-Time and Subscription. */
  cost_wei: bigint;
  duration_ms: number;
};

/** A run looked up by id: its result once final, else how far it got. */
export type Run =
  | (RunResult & { failure?: string })
  | {
      run_id: string;
      agent_id: string;
      status: "waiting" | "queued" | "running";
      output: null;
      cost_wei: bigint;
      duration_ms: null;
    };

export type RunStatus = "waiting" | "queued" | "running" | "completed" | "failed";

/** A run `runs.create` started: its result comes from `runs.get(run_id)` once final. */
export type RunAccepted = { run_id: string; status: RunStatus };

/** A run as run lists show it: its bookkeeping, never its input or output. */
export type RunListItem = {
  run_id: string;
  agent_id: string;
  status: RunStatus;
  cost_wei: bigint;
  /** Null until the run's answer is final. */
  duration_ms: number | null;
  /** ISO 8601. */
  created_at: string;
};

export type RunListParams = {
  /** Only the runs of this listing. */
  agent_id?: string;
  status?: RunStatus;
  /** ISO 8601: runs created at or after it. */
  since?: string;
  /** ISO 8601: runs created before it. */
  until?: string;
  /** Runs per page, 1 to 100 (20 by default). */
  limit?: number;
  /** Start at the page a `next_cursor` names, instead of the first. */
  cursor?: string;
};

export type RunListPage = { runs: RunListItem[]; next_cursor: string | null };

/** One UTC day of a creator's runs. */
export type DailyRunTotals = {
  /** YYYY-MM-DD, UTC. */
  date: string;
  runs: number;
  failures: number;
  /** What the creator earned from those runs: each debit's price less the protocol fee. */
  earned_wei: bigint;
};

export type CreatorRunListPage = RunListPage & { daily: DailyRunTotals[] };

export type ExecuteStreamEvent =
  | { event: "output"; data: { delta: string } }
  | {
      event: "done";
      data: {
        run_id: string;
        status: "completed" | "failed";
        cost_wei: bigint;
        duration_ms: number;
        /** The output accumulated before a run failed. */
        output?: string;
      };
    };

export type Job =
  | { job_id: string; status: "queued" }
  | {
      job_id: string;
      status: "completed";
      result: {
        agent_id: string;
        listing_id: string;
        /** A registration: the arguments of the creator's `createListing` call. */
        create_listing?: { seed: string; metadata_uri: string; on_chain_listing_id: string };
        /**
         * A new version: the arguments of the creator's `updateListing` call; `price` is the
         * listing's price now in wei (null before the listing is indexed), which the creator may change.
         */
        update_listing?: {
          on_chain_listing_id: string;
          price: string | null;
          metadata_uri: string;
        };
        /** Connected agents: the secret their webhook calls are signed with. */
        webhook_secret?: string;
      };
    }
  | {
      job_id: string;
      status: "failed";
      error: { code: string; message: string; [field: string]: unknown };
    };

export type ToolFormat = "openai" | "anthropic";

/** What an API key may do: run tasks, read, act as a creator (register, read webhook secrets). */
export type ApiKeyScope = "run" | "read" | "create";

export type ApiKey = {
  id: string;
  label: string;
  scopes: ApiKeyScope[];
  /** At most this much wei a UTC day on the per-task runs it starts; null: no cap. */
  daily_spend_cap_wei: string | null;
  /** The only listings it may run; null: any. */
  allowed_listings: string[] | null;
  /** The key's first characters, to tell keys apart. */
  preview: string;
  created_at: string;
  revoked_at: string | null;
};

export type CreatedApiKey = ApiKey & {
  /** The key itself: shown this once, never again. */
  key: string;
};

/** Where to pay: the chain, the contract and the protocol's state at the latest block. */
export type Marketplace = {
  chain_id: number;
  contract_name: "ServiceMarketplace";
  contract_address: string;
  /** The contract's JSON ABI, relative to the base URL. */
  abi_url: string;
  protocol_fee_basis_points: number;
  paused: boolean;
  network: "test" | "live";
};

/** What a webhook endpoint may be sent: a run's end, a credential's state, a listing's sale or review. */
export type WebhookEvent =
  | "run.completed"
  | "run.failed"
  | "credential.low_balance"
  | "credential.expiring"
  | "listing.purchased"
  | "listing.reviewed";

export type WebhookEndpoint = {
  id: string;
  url: string;
  events: WebhookEvent[];
  /** Events not delivered there: they came while 10,000 of its deliveries were pending. */
  dropped_events: number;
  created_at: string;
};

export type CreatedWebhookEndpoint = WebhookEndpoint & {
  /** The `whsec_…` secret its deliveries are signed with: shown this once, never again. */
  secret: string;
};

/** One event delivered to one endpoint: its attempts and where it stands, never its body. */
export type WebhookDelivery = {
  /** The `webhook-id` of its every attempt. */
  id: string;
  type: WebhookEvent;
  /** `pending` (its next attempt to come), `sending`, `delivered`, `failed` (given up). */
  status: "pending" | "sending" | "delivered" | "failed";
  attempts: number;
  last_response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
};

export type WebhookDeliveryPage = { deliveries: WebhookDelivery[]; next_cursor: string | null };

export type WebhookDeliveryParams = { limit?: number; cursor?: string };
