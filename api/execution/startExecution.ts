import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { Address } from "viem";
import type { SpendLimits } from "../../lib/auth/spendLimits.ts";
import type { Bus } from "../../lib/bus/bus.ts";
import type { RunRequest, RunRow } from "../../lib/db/appSchema.ts";
import { newRunId } from "../../lib/ids/randomIds.ts";
import { QueueRefusal } from "../../lib/manifest/fairQueue.ts";
import { canonicalJson } from "../../lib/manifest/publicManifest.ts";
import { nextDebit } from "../../lib/marketplace/credentialStatus.ts";
import { admitRun, findIdempotentRun, type RunToAdmit } from "../../lib/runLedger/admitRun.ts";
import { announceGranted } from "../../lib/runLedger/grantSlots.ts";
import { runTopic } from "../../lib/runLedger/notices.ts";
import { refuseUnhandedRun } from "../../lib/runLedger/refuseUnhandedRun.ts";
import { contractApiError } from "../chain/contractErrors.ts";
import { type AccessRead, readAccessState } from "../credentials/readAccessState.ts";
import { ApiError } from "../http/errors.ts";
import { idempotencyKeyOf } from "../http/idempotencyKey.ts";
import { readJsonObject } from "../http/readJsonObject.ts";
import { parseInput } from "../http/validation.ts";
import {
  DEBIT_WAIT_MS,
  EXECUTION_RETRY_AFTER_SECONDS,
  MAX_BODY_BYTES,
  RUN_REREAD_MS,
} from "../limits.ts";
import { type ApiDeps, type AppEnv, callerWallet, type Identity } from "../process/context.ts";
import { accessRefusal } from "./accessRefusal.ts";
import { type ExecuteBody, executeBody } from "./executeRequest.ts";
import { countExecution } from "./executionRateLimit.ts";
import { type AgentListing, findAgentListing } from "./findAgentListing.ts";
import { lookUpDebits } from "./lookUpDebits.ts";
import {
  notHandedOverError,
  retryShortlyError,
  stillGoingError,
  stoppingError,
} from "./unanswered.ts";
import { type OnDelta, type RunWatch, watchRun } from "./watchRun.ts";

export type StartedExecution = {
  runId: string;
  /** Until when (ms since the epoch) to wait for the answer before giving up on it. */
  answerDeadline: number;
  watch: RunWatch;
};

/** A task to run, whichever protocol brought it: who asks, what, and under which idempotency key. */
export type ExecutionRequest = {
  wallet: Address;
  /** The execute body as it was sent: what an idempotency key is bound to. */
  sent: Record<string, unknown>;
  /** `sent`, parsed with `executeBody`. */
  body: ExecuteBody;
  idempotencyKey: string | undefined;
  /** The API key it comes with, whose limits it must keep; none for a wallet token. */
  apiKey: SpendingKey | undefined;
};

/** An API key as a run's spending sees it. */
export type SpendingKey = { id: string; limits: SpendLimits };

/** The caller's API key, if it called with one. */
export function spendingKeyOf(identity: Identity | undefined): SpendingKey | undefined {
  return identity?.method === "api_key"
    ? { id: identity.keyId, limits: identity.limits }
    : undefined;
}

export type ExecutionOptions = {
  /** Where the run's output deltas go as they come. */
  onDelta?: OnDelta;
  /**
   * The HTTP answer whose headers describe the rate limits and a refusal's `Retry-After`; none for
   * a protocol whose answers are not HTTP responses of their own.
   */
  answer?: Context<AppEnv>;
};

/**
 * Admits the request's run (docs/execution.md, "Admission") and watches it, its output deltas going
 * to `onDelta`; or, under an Idempotency-Key already used with the same body, watches that run.
 * Every refusal is thrown as the API error the caller gets.
 */
export async function startExecution(
  c: Context<AppEnv>,
  onDelta?: OnDelta,
): Promise<StartedExecution> {
  const deps = c.get("deps");
  if (deps.stopping.aborted) throw stoppingError(c);
  const { body: sent } = await readJsonObject(c, { maxBytes: MAX_BODY_BYTES });
  const body = parseInput(executeBody, sent);
  const idempotencyKey = idempotencyKeyOf(c);
  const wallet = callerWallet(c);
  const apiKey = spendingKeyOf(c.get("identity"));
  return admitExecution(
    deps,
    { wallet, sent, body, idempotencyKey, apiKey },
    { onDelta, answer: c },
  );
}

/**
 * `startExecution` for a request already read, by any protocol: the on-chain check, the charging
 * rule, the rate limits and idempotency are the same for all.
 */
export async function admitExecution(
  deps: ApiDeps,
  { wallet, sent, body, idempotencyKey, apiKey }: ExecutionRequest,
  { onDelta, answer }: ExecutionOptions = {},
): Promise<StartedExecution> {
  if (deps.stopping.aborted) throw stoppingError(answer);
  const listing = await findAgentListing(deps, body.agent_id);
  const allowed = apiKey?.limits.allowedListings;
  if (allowed && !allowed.includes(listing.onChainListingId.toLowerCase())) {
    throw new ApiError("listing_not_allowed", "This API key may not run this listing");
  }
  await countExecution(
    deps,
    {
      wallet,
      onChainListingId: listing.onChainListingId,
      limitPerMinute: listing.executionLimitPerMinute,
    },
    answer,
  );
  const timeoutSeconds = body.timeout_seconds ?? listing.timeoutSeconds;
  if (timeoutSeconds > listing.timeoutSeconds) {
    throw new ApiError(
      "invalid_request",
      `timeout_seconds: must be at most ${listing.timeoutSeconds}, this agent's limit`,
    );
  }
  // Key order and spacing aside, the same body is the same request.
  const requestHash = createHash("sha256").update(canonicalJson(sent)).digest("hex");

  const attach = (existing: RunRow): StartedExecution => {
    if (existing.requestHash !== requestHash) throw idempotencyConflict();
    return {
      runId: existing.id,
      answerDeadline: answerDeadline(
        existing.request?.timeoutSeconds ?? listing.timeoutSeconds,
        deps.settings.runAnswerGraceMs,
      ),
      watch: watchRun(deps, existing.id, onDelta),
    };
  };
  let access: PermittedAccess;
  try {
    access = await readPermittedAccess(deps, wallet, listing);
    checkMaxCost(body.max_cost_wei, priceOf(access));
    await checkInput(deps, listing, body.input);
  } catch (refusal) {
    // A retry's run is answered whatever the chain or the agent's schema say now. A permitted
    // request's key is looked up by its admission, so a first request (most) reads it only there.
    const existing =
      idempotencyKey === undefined
        ? undefined
        : await findIdempotentRun(deps.db, wallet, idempotencyKey);
    if (existing) return attach(existing);
    throw refusal;
  }

  const run: RunToAdmit = {
    id: newRunId(),
    wallet,
    onChainListingId: listing.onChainListingId,
    rentalModel: access.credential.rentalModel,
    priority: body.priority,
    request: requestOf(body, timeoutSeconds),
    requestHash,
    idempotencyKey,
    apiKeyId: apiKey?.id,
  };
  // Listening before the run exists, so that no notice of it is missed.
  const watch = watchRun(deps, run.id, onDelta);
  try {
    const debitWaitEnds = Date.now() + DEBIT_WAIT_MS;
    /** Debit transactions looked up against the block of `access`. */
    let inBalance = new Map<string, boolean>();
    for (;;) {
      const perTask =
        access.credential.rentalModel === "per_query"
          ? {
              blockNumber: access.block.number,
              balance: access.credential.balance,
              price: nextDebit(access.credential),
              dailyCapWei: apiKey?.limits.dailyCapWei ?? null,
            }
          : undefined;
      const admission = await admitRun(deps.db, run, perTask, inBalance);
      switch (admission.outcome) {
        case "admitted": {
          watch.admitted(admission.granted.some(({ id }) => id === run.id) ? "queued" : "waiting");
          // A publish lost here is made again by the sweeper, but the renter does not wait for it.
          const unpublished = await announceGranted(deps.bus, admission.granted);
          if (unpublished.includes(run.id)) await refuseUnhanded(deps, run.id, answer);
          return {
            runId: run.id,
            answerDeadline: answerDeadline(timeoutSeconds, deps.settings.runAnswerGraceMs),
            watch,
          };
        }
        case "existing":
          await watch.stop();
          return attach(admission.run);
        case "idempotency_conflict":
          throw idempotencyConflict();
        case "spend_cap_exceeded":
          throw new ApiError(
            "spend_cap_exceeded",
            "This API key's spend cap for today (UTC) leaves less than this run's price",
            { retryAfterSeconds: secondsToUtcMidnight(Date.now()) },
          );
        case "insufficient_balance":
          throw contractApiError(
            "InsufficientBalance",
            "The per-task balance, less the runs it already pays for, cannot pay for this run",
          );
        case "debits_unknown":
          await lookUpDebits(
            deps.chain.client,
            admission.transactions,
            access.block.number,
            inBalance,
          );
          break;
        case "debits_in_flight": {
          // A refusal is never spurious: the debits in flight may charge less than they hold.
          if (deps.stopping.aborted) throw stoppingError(answer);
          if (Date.now() >= debitWaitEnds) {
            throw retryShortlyError(
              answer,
              "Earlier runs of this credential are still being charged; retry shortly",
            );
          }
          await nextNotice(deps.bus, admission.inFlight.map(runTopic), RUN_REREAD_MS / 2);
          access = await readPermittedAccess(deps, wallet, listing);
          checkMaxCost(body.max_cost_wei, priceOf(access));
          inBalance = new Map();
        }
      }
    }
  } catch (error) {
    await watch.stop();
    throw error;
  }
}

/**
 * For a run the bus did not take in time: refused (503, nothing run or charged) unless a worker took
 * it meanwhile. If the refusal cannot be written, the run stays queued and the sweeper publishes it
 * once the bus answers: the answer names the run, which goes on.
 */
async function refuseUnhanded(
  { db }: ApiDeps,
  runId: string,
  answer: Context | undefined,
): Promise<void> {
  const refused = await refuseUnhandedRun(db, runId).catch((error: unknown) => {
    throw stillGoingError(runId, answer, error);
  });
  if (refused) throw notHandedOverError(answer);
}

type PermittedAccess = AccessRead & { credential: NonNullable<AccessRead["credential"]> };

/** One `getAccessState` read at the latest block; a wallet it does not permit a run is refused. */
async function readPermittedAccess(
  { chain }: ApiDeps,
  wallet: Address,
  listing: AgentListing,
): Promise<PermittedAccess> {
  const access = await readAccessState(
    chain.reader,
    chain.marketplace,
    { onChainListingId: listing.onChainListingId, wallet },
    { protocolPause: true },
  );
  const refusal = accessRefusal(access);
  if (refusal) throw refusal;
  if (!access.credential) throw new Error("an access state without a credential was permitted");
  return access as PermittedAccess;
}

/** What a run under `access` costs, in wei: the next debit's price per task, else nothing. */
function priceOf(access: PermittedAccess): bigint {
  return access.credential.rentalModel === "per_query" ? nextDebit(access.credential) : 0n;
}

/** Refuses a run whose price is above the request's `max_cost_wei`. */
function checkMaxCost(maxCostWei: bigint | undefined, price: bigint) {
  if (maxCostWei !== undefined && price > maxCostWei) {
    throw new ApiError(
      "max_cost_exceeded",
      `This run costs ${price} wei, more than max_cost_wei (${maxCostWei})`,
    );
  }
}

function secondsToUtcMidnight(nowMs: number): number {
  const day = 86_400_000;
  return Math.ceil((Math.floor(nowMs / day + 1) * day - nowMs) / 1000);
}

/** `input` against the agent's `input_schema`, on the validation threads. */
async function checkInput({ inputValidation }: ApiDeps, listing: AgentListing, input: unknown) {
  if (input === undefined || listing.inputSchema === undefined) return;
  const validation = await inputValidation
    .validateInput(listing.version, listing.inputSchema, input, listing.onChainListingId)
    .catch((error: unknown) => {
      if (!(error instanceof QueueRefusal)) throw error;
      throw new ApiError(
        "service_unavailable",
        "This agent's input checks are busy; retry shortly",
        { cause: error, retryAfterSeconds: EXECUTION_RETRY_AFTER_SECONDS },
      );
    });
  if (!validation.ok) {
    throw new ApiError(
      "invalid_request",
      `${validation.mismatch.path}: ${validation.mismatch.message}`,
    );
  }
}

function requestOf(body: ExecuteBody, timeoutSeconds: number): RunRequest {
  return {
    task: body.task,
    ...(body.input !== undefined && { input: body.input }),
    ...(body.input_uri !== undefined && { inputUri: body.input_uri }),
    timeoutSeconds,
  };
}

function answerDeadline(timeoutSeconds: number, graceMs: number): number {
  return Date.now() + timeoutSeconds * 1000 + graceMs;
}

function idempotencyConflict() {
  return new ApiError("invalid_request", "This Idempotency-Key was already used with another body");
}

/** Resolves on the first notice on any of `topics`, or after `timeoutMs`. */
function nextNotice(bus: Bus, topics: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const subscriptions = topics.map((topic) => bus.listen(topic, () => done()));
    const timer = setTimeout(() => done(), timeoutMs);
    function done() {
      clearTimeout(timer);
      for (const subscription of subscriptions) void subscription.stop();
      resolve();
    }
  });
}
