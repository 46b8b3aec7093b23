import type { Server } from "node:http";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { Bus } from "../../lib/bus/bus.ts";
import { requireDeployment } from "../../lib/chain/deploymentFile.ts";
import { loadOrCreateKey } from "../../lib/crypto/keyFile.ts";
import type { Database } from "../../lib/db/projections.ts";
import { createReadiness, type ReadinessCheck } from "../../lib/health/readiness.ts";
import {
  chainHeadFresh,
  indexerWithinLag,
  migrationsApplied,
  postgresAnswers,
} from "../../lib/health/readinessChecks.ts";
import { startOutboxRelay } from "../../lib/jobs/outboxRelay.ts";
import type { Logger } from "../../lib/log.ts";
import { receiptsAccount } from "../../lib/receipts/receiptsAccount.ts";
import { createApp } from "../app.ts";
import { jwtSettings } from "../auth/jwt.ts";
import { createChainClient } from "../chain/chainClient.ts";
import { watchChainHeads, webSocketUrlOf } from "../chain/chainHeads.ts";
import { createChainReader } from "../chain/chainReader.ts";
import { dashboardConfig } from "../dashboard/dashboardConfig.ts";
import { startInputValidationThreads } from "../execution/inputValidationThreads.ts";
import { httpServerOptions } from "../http/httpServerOptions.ts";
import { gaugeIndexerLag } from "../indexer/indexerLagGauges.ts";
import { RUN_ANSWER_GRACE_MS, STREAM_HEARTBEAT_MS } from "../limits.ts";
import type { ApiEnv } from "./env.ts";
import { gaugeApiProcess } from "./processGauges.ts";
import { startLocalState } from "./startLocalState.ts";

/**
 * Serves the REST API over `bus` and runs the outbox relay that publishes its jobs. Resolves once
 * listening; `close()` answers the requests waiting on runs, stops taking requests, gives back the
 * rate-limit units it leased, then stops the relay.
 */
export async function serveApi({
  env,
  db,
  bus,
  sealingKey,
  log,
  readinessChecks,
}: {
  env: ApiEnv;
  db: Database;
  bus: Bus;
  sealingKey: Uint8Array;
  log: Logger;
  /** What the composition adds to the API's own readiness checks: its bus's, its workers'. */
  readinessChecks: Record<string, ReadinessCheck>;
}): Promise<{ close: () => Promise<void> }> {
  const deployment = await requireDeployment(env.DEPLOYMENT_FILE);
  const inputValidation = startInputValidationThreads({ eager: true });
  const stopping = new AbortController();
  const local = startLocalState({ db, databaseUrl: env.DATABASE_URL, log });
  const heads = watchChainHeads(env.RPC_WS_URL ?? webSocketUrlOf(env.RPC_URL), log);
  if (env.METRICS_PORT !== undefined) {
    gaugeIndexerLag(local.indexer);
    gaugeApiProcess({ heads, inputValidation });
  }
  const readiness = createReadiness(
    {
      postgres: postgresAnswers(db),
      migrations: migrationsApplied(db),
      chain: chainHeadFresh(env.RPC_URL, deployment.chainId),
      indexer: indexerWithinLag(local.indexer.read),
      ...readinessChecks,
    },
    log.child("readiness"),
  );
  const app = createApp({
    db,
    apiKeys: local.apiKeys,
    revocations: local.revocations,
    budgets: local.budgets,
    catalogue: local.catalogue,
    indexer: local.indexer,
    bus,
    sealingKey,
    chain: {
      client: createChainClient(env.RPC_URL),
      reader: createChainReader(env.RPC_URL, heads),
      marketplace: deployment.address,
      chainId: deployment.chainId,
      receipts: receiptsAccount(deployment.chainId, env.RECEIPTS_PRIVATE_KEY),
    },
    settings: {
      serviceName: env.SERVICE_NAME,
      network: env.NETWORK,
      publicUrl: env.PUBLIC_URL,
      jwt: jwtSettings(
        env.SERVICE_NAME,
        env.JWT_SECRET
          ? new TextEncoder().encode(env.JWT_SECRET)
          : await loadOrCreateKey(join(env.DATA_DIR, "jwt-secret")),
        env.JWT_LIFETIME_SECONDS,
      ),
      rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
      authRateLimitPerMinute: env.AUTH_RATE_LIMIT_PER_MINUTE,
      trustProxy: env.TRUST_PROXY,
      executionRateLimitPerMinute: env.EXECUTION_RATE_LIMIT_PER_MINUTE,
      maxExecutionRatePerMinute: env.MAX_EXECUTION_RATE_PER_MINUTE,
      registrationQuota: {
        queuedPerWallet: env.REGISTRATIONS_QUEUED_PER_WALLET,
        unlistedPerWallet: env.UNLISTED_AGENTS_PER_WALLET,
      },
      streamHeartbeatMs: STREAM_HEARTBEAT_MS,
      runAnswerGraceMs: RUN_ANSWER_GRACE_MS,
    },
    dashboard: {
      dir: env.DASHBOARD_DIR,
      config: dashboardConfig({
        chainId: deployment.chainId,
        marketplace: deployment.address,
        rpcUrl: env.RPC_URL,
        publicRpcUrl: env.DASHBOARD_RPC_URL,
      }),
    },
    inputValidation,
    readiness,
    log,
    now: Date.now,
    stopping: stopping.signal,
  });
  const relay = startOutboxRelay({ db, bus, log });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const listening = serve(
      {
        fetch: app.fetch,
        port: env.API_PORT,
        hostname: env.API_HOST,
        serverOptions: httpServerOptions(),
      },
      () => {
        log.info("listening", { url: `http://${env.API_HOST}:${env.API_PORT}/v1` });
        resolve(listening);
      },
    );
  });
  return {
    close: async () => {
      // Requests waiting on runs answer first (their runs go on), or closing would wait for them;
      // each connection is closed once its last answer is out, not kept for its keep-alive.
      stopping.abort();
      const closed = new Promise((resolve) => server.close(resolve));
      const closeIdle = setInterval(() => (server as Server).closeIdleConnections(), 50);
      await closed;
      clearInterval(closeIdle);
      heads.close();
      await local.stop();
      await relay.stop();
      await inputValidation.close();
    },
  };
}
