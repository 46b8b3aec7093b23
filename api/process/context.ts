import type { Context } from "hono";
import type { Address, LocalAccount, PublicClient } from "viem";
import type { ApiKeyScope } from "../../lib/auth/apiKeyScopes.ts";
import type { SpendLimits } from "../../lib/auth/spendLimits.ts";
import type { Bus } from "../../lib/bus/bus.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Readiness } from "../../lib/health/readiness.ts";
import type { RegistrationQuota } from "../../lib/jobs/registrationQuota.ts";
import type { Logger } from "../../lib/log.ts";
import type { ManifestValidationThreads } from "../../lib/manifest/manifestValidationThreads.ts";
import type { TrustProxy } from "../../lib/net/trustProxy.ts";
import type { ApiKeyCache } from "../auth/apiKeyCache.ts";
import type { Network } from "../auth/apiKeys.ts";
import type { JwtSettings } from "../auth/jwt.ts";
import type { RevocationReceipts } from "../auth/revocationReceipts.ts";
import type { ChainReader } from "../chain/chainReader.ts";
import type { DashboardSite } from "../dashboard/dashboardSite.ts";
import { ApiError } from "../http/errors.ts";
import type { IndexerLagReader } from "../indexer/indexerLag.ts";
import type { CatalogueCache } from "../listings/catalogueCache.ts";
import type { RateLimitBudget } from "../middleware/rateLimit.ts";
import type { LeasedBudgets } from "../rateLimit/leasedBudgets.ts";

/** What the API is built from; tests build it against the real stack too. */
export type ApiDeps = {
  /** One database: the `app` schema and the indexer's views. */
  db: Database;
  /** Active API keys by hash, kept coherent across processes (`startLocalState`). */
  apiKeys: ApiKeyCache;
  /** Lets a revocation wait until every API process has dropped the key. */
  revocations: RevocationReceipts;
  /** Rate-limit budgets shared by every API process, leased ahead. */
  budgets: LeasedBudgets;
  /** Catalogue answers kept until the catalogue changes (`startLocalState`). */
  catalogue: CatalogueCache;
  /** How current the projections are, as the indexer's supervisor last recorded it. */
  indexer: IndexerLagReader;
  bus: Bus;
  /** Seals registration requests and agents' private parts at rest. */
  sealingKey: Uint8Array;
  /**
   * The chain the marketplace is deployed on; `chainId` as its deployment recorded it. `receipts`
   * signs run receipts (docs/receipts.md).
   */
  chain: {
    client: PublicClient;
    reader: ChainReader;
    marketplace: Address;
    chainId: number;
    receipts: LocalAccount;
  };
  settings: {
    serviceName: string;
    network: Network;
    /**
     * Where clients reach the API (`PUBLIC_URL`): sign-in messages name its host and origin. Unset,
     * each request's own Host is named.
     */
    publicUrl?: string;
    jwt: JwtSettings;
    rateLimitPerMinute: number;
    /** Sign-in requests per minute per client address, a budget apart from the others. */
    authRateLimitPerMinute: number;
    /** Which proxies' `X-Forwarded-For` names the client; unset, the header is ignored. */
    trustProxy: TrustProxy | undefined;
    /** Executions per minute per credential, unless the listing's creator set its own. */
    executionRateLimitPerMinute: number;
    /** The most executions per minute per credential a listing's creator may set. */
    maxExecutionRatePerMinute: number;
    /** What one wallet may have queued, and registered without listing. */
    registrationQuota: RegistrationQuota;
    /** How often an idle execution stream gets a comment line (`STREAM_HEARTBEAT_MS`). */
    streamHeartbeatMs: number;
    /** Past a run's timeout, how long its answer may take (`RUN_ANSWER_GRACE_MS`). */
    runAnswerGraceMs: number;
  };
  /** What `/readyz` reports; no health routes in route-level tests. */
  readiness?: Readiness;
  /** The web dashboard served on the API's origin; none in route-level tests. */
  dashboard?: DashboardSite;
  /** Checks tasks' input against their agents' input schemas, off the event loop. */
  inputValidation: Pick<ManifestValidationThreads, "validateInput">;
  log: Logger;
  /** Milliseconds since the epoch; replaceable so tests can move time. */
  now: () => number;
  /**
   * Aborted once the process begins to stop: requests waiting on a run answer at once (the run goes
   * on, kept for `GET /v1/runs/:run_id`), and no new run is admitted.
   */
  stopping: AbortSignal;
};

export type Identity =
  | {
      method: "api_key";
      wallet: Address;
      keyId: string;
      keyHash: string;
      scopes: readonly ApiKeyScope[];
      limits: SpendLimits;
    }
  | {
      method: "jwt";
      wallet: Address;
      /** When the token expires, in seconds since the epoch. */
      expiresAt: number;
    };

export type AppEnv = {
  Variables: {
    deps: ApiDeps;
    requestId: string;
    identity?: Identity;
    /** Why the request could not be authenticated, raised once the rate limit is counted. */
    authError?: ApiError;
    /** Who sent the request, as its budgets count it: its client address, an IPv6 one's /64. */
    requester?: string;
    /** The caller's general budget, as counted for this request. */
    rateLimit?: RateLimitBudget;
  };
};

/** The authenticated caller (routes behind `requireIdentity` always have one). */
export function callerIdentity(c: Context<AppEnv>): Identity {
  const identity = c.get("identity");
  if (!identity) throw new ApiError("unauthorized", "Authentication required");
  return identity;
}

/** The authenticated caller's wallet. */
export function callerWallet(c: Context<AppEnv>): Address {
  return callerIdentity(c).wallet;
}

/** Who sent the request, as the rate limit (which every route is behind) resolved it. */
export function callerRequester(c: Context<AppEnv>): string {
  const requester = c.get("requester");
  if (requester === undefined) throw new Error("The rate limit did not resolve the requester");
  return requester;
}
