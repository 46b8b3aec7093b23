// The REST API inside the test's own process, over the stack's Postgres and chain: routes answer
// `app.request()`, with no server, socket or process of their own.
import type { Account } from "viem/accounts";
import { createApp } from "../../api/app.ts";
import { issueToken, jwtSettings } from "../../api/auth/jwt.ts";
import { createChainClient } from "../../api/chain/chainClient.ts";
import { createChainReader } from "../../api/chain/chainReader.ts";
import { startInputValidationThreads } from "../../api/execution/inputValidationThreads.ts";
import { RUN_ANSWER_GRACE_MS, STREAM_HEARTBEAT_MS } from "../../api/limits.ts";
import type { ApiDeps } from "../../api/process/context.ts";
import { startLocalState } from "../../api/process/startLocalState.ts";
import { JWT_SECRET, SEALING_KEY, type Stack } from "../../devStack/startStack.ts";
import { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import { LOCAL_CHAIN_ID } from "../../lib/chain/devAccounts.ts";
import { ENV_FIELDS } from "../../lib/env.ts";
import { createLogger } from "../../lib/log.ts";
import type { TrustProxy } from "../../lib/net/trustProxy.ts";
import { receiptsAccount } from "../../lib/receipts/receiptsAccount.ts";
import { http } from "./http.ts";

export type TestAppOptions = {
  /** The chain the app reads; default the stack's anvil (a closed port makes the chain unreachable). */
  rpcUrl?: string;
  /** Default: high enough never to matter; rate limiting is tested across processes. */
  rateLimitPerMinute?: number;
  /** Default: high enough never to matter. */
  authRateLimitPerMinute?: number;
  /** TRUST_PROXY; default unset. */
  trustProxy?: TrustProxy;
  /** The app's clock, in milliseconds since the epoch; default the real one. */
  now?: () => number;
  /** PUBLIC_URL; default unset (sign-in messages name the request's Host). */
  publicUrl?: string;
  /** Default: the default of NETWORK. */
  network?: "test" | "live";
  /** The chain id the app believes its deployment is on; default the stack's. */
  chainId?: number;
  /** Default: EXECUTION_RATE_LIMIT_PER_MINUTE's default. */
  executionRateLimitPerMinute?: number;
  /** Default: MAX_EXECUTION_RATE_PER_MINUTE's default. */
  maxExecutionRatePerMinute?: number;
  /** Default: `STREAM_HEARTBEAT_MS`. */
  streamHeartbeatMs?: number;
  /** Default: `RUN_ANSWER_GRACE_MS`. */
  runAnswerGraceMs?: number;
};

export type TestApp = ReturnType<typeof createTestApp>;

/** The API over `stack`'s database, chain and marketplace, as `api/process/serveApi.ts` builds it. */
export function createTestApp(stack: Stack, options: TestAppOptions = {}) {
  const serviceName = ENV_FIELDS.SERVICE_NAME.parse(undefined);
  const logLines: string[] = [];
  const stopping = new AbortController();
  const log = createLogger("api", (line) => logLines.push(line));
  const local = startLocalState({ db: stack.db, databaseUrl: stack.postgres.databaseUrl, log });
  const deps: ApiDeps = {
    db: stack.db,
    apiKeys: local.apiKeys,
    revocations: local.revocations,
    budgets: local.budgets,
    catalogue: local.catalogue,
    indexer: local.indexer,
    bus: createInProcessBus(),
    sealingKey: Buffer.from(SEALING_KEY, "hex"),
    chain: {
      client: createChainClient(options.rpcUrl ?? stack.anvil.rpcUrl),
      reader: createChainReader(options.rpcUrl ?? stack.anvil.rpcUrl),
      marketplace: stack.deployment.address,
      chainId: options.chainId ?? stack.deployment.chainId,
      receipts: receiptsAccount(LOCAL_CHAIN_ID, undefined),
    },
    settings: {
      serviceName,
      network: options.network ?? ENV_FIELDS.NETWORK.parse(undefined),
      publicUrl: options.publicUrl,
      jwt: jwtSettings(serviceName, new TextEncoder().encode(JWT_SECRET)),
      rateLimitPerMinute: options.rateLimitPerMinute ?? 1_000_000,
      authRateLimitPerMinute: options.authRateLimitPerMinute ?? 1_000_000,
      trustProxy: options.trustProxy,
      executionRateLimitPerMinute:
        options.executionRateLimitPerMinute ??
        ENV_FIELDS.EXECUTION_RATE_LIMIT_PER_MINUTE.parse(undefined),
      maxExecutionRatePerMinute:
        options.maxExecutionRatePerMinute ??
        ENV_FIELDS.MAX_EXECUTION_RATE_PER_MINUTE.parse(undefined),
      registrationQuota: {
        queuedPerWallet: ENV_FIELDS.REGISTRATIONS_QUEUED_PER_WALLET.parse(undefined),
        unlistedPerWallet: ENV_FIELDS.UNLISTED_AGENTS_PER_WALLET.parse(undefined),
      },
      streamHeartbeatMs: options.streamHeartbeatMs ?? STREAM_HEARTBEAT_MS,
      runAnswerGraceMs: options.runAnswerGraceMs ?? RUN_ANSWER_GRACE_MS,
    },
    // Idle threads do not keep the test process alive.
    inputValidation: startInputValidationThreads(),
    log,
    now: options.now ?? Date.now,
    stopping: stopping.signal,
  };
  const app = createApp(deps);
  return {
    app,
    deps,
    /** What the process does first as it stops (`serveApi`'s `close`). */
    beginStopping: () => stopping.abort(),
    /** Resolves once the app hears other processes' notices, as a process soon after it starts. */
    listening: () => local.whenListening(),
    /** Gives back leased rate-limit units and closes the listen connection, as a stopping process. */
    close: () => local.stop(),
    /** Every line the app logged, as JSON text. */
    logLines,
    /** `get`, `post` and `del` of `test/support/http.ts`, answered by the app; `peer` is the socket's. */
    http: (bearer?: string, { peer }: { peer?: string } = {}) =>
      http("http://api.test", {
        bearer,
        send: (url, init) =>
          app.request(
            url,
            init,
            peer ? { incoming: { socket: { remoteAddress: peer } } } : undefined,
          ),
      }),
    /** A wallet token as `POST /v1/auth/token` issues it, at the app's clock. */
    tokenFor: async (account: Account) =>
      (await issueToken(account.address, deps.settings.jwt, Math.floor(deps.now() / 1000))).token,
  };
}
