import { type SQL, sql } from "drizzle-orm";
import { streamSSE } from "hono/streaming";
import { runs } from "../../lib/db/appSchema.ts";
import { isDatabaseUnavailable } from "../../lib/db/databaseUnavailable.ts";
import { projections } from "../../lib/db/projections.ts";
import { watchCredential } from "../auth/watchCredential.ts";
import { creatorListingsBody } from "../creators/creatorListings.ts";
import { createOpenStreams } from "../creators/openStreams.ts";
import { ApiError, errorBody } from "../http/errors.ts";
import { parseQuery } from "../http/validation.ts";
import {
  CREATOR_RUNS_DEFAULT_DAYS,
  CREATOR_RUNS_MAX_DAYS,
  LISTINGS_STREAM_REREAD_MS,
  LISTINGS_STREAM_RETRY_AFTER_SECONDS,
  LISTINGS_STREAMS_PER_PROCESS,
  LISTINGS_STREAMS_PER_WALLET,
} from "../limits.ts";
import { AUTHENTICATED } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerIdentity, callerWallet } from "../process/context.ts";
import { dailyRunTotals } from "../runs/dailyRunTotals.ts";
import { listRuns, runPageJson } from "../runs/listRuns.ts";
import { runListQuery } from "../runs/runListQuery.ts";

const DAY_MS = 86_400_000;

/** The caller's own listings, as their creator: once, or as a stream that follows the indexer. */
export function creatorRoutes() {
  const routes = new DescribedRoutes("/v1/creators");
  const openStreams = createOpenStreams({
    perWallet: LISTINGS_STREAMS_PER_WALLET,
    perProcess: LISTINGS_STREAMS_PER_PROCESS,
    retryAfterSeconds: LISTINGS_STREAM_RETRY_AFTER_SECONDS,
  });

  routes.get(
    "/me/listings",
    {
      tag: "Creators",
      summary: "The caller's listings as their creator",
      description:
        "Every listing the caller's wallet created, in any status, the last published first: " +
        "purchases, escrow, earnings, withdrawals, runs and success rate from the indexer.",
      security: "bearer",
      scope: "read",
      answer: { status: 200, description: "The listings", schema: answers.creatorListings },
      errors: AUTHENTICATED,
    },
    async (c, reply) => {
      const body = await creatorListingsBody(c.get("deps"), callerWallet(c));
      return reply.written(c, body);
    },
  );

  /**
   * A `listings` event with the same body at once, and again each time the indexer's projections
   * (or the agents' titles) change it. A failure to read them ends the stream with an `error` event,
   * and so does the end of the credential it was opened with: its JWT's expiry, its key's revocation.
   */
  routes.get(
    "/me/listings/events",
    {
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
      scope: "read",
      answer: { status: 200, description: "The event stream", eventStream: true },
      errors: AUTHENTICATED,
    },
    async (c) => {
      const deps = c.get("deps");
      const identity = callerIdentity(c);
      const wallet = identity.wallet;
      const release = openStreams.claim(wallet);
      let sent: string;
      try {
        // A first read that fails is an answer with a status, before the stream starts.
        sent = await creatorListingsBody(deps, wallet);
      } catch (error) {
        release();
        throw error;
      }

      return streamSSE(c, async (stream) => {
        const ended = new AbortController();
        stream.onAbort(() => ended.abort());
        const credential = watchCredential(identity, deps);
        const over = AbortSignal.any([ended.signal, deps.stopping, credential.signal]);
        // One write at a time, in order: events and heartbeats never interleave.
        let writing: Promise<unknown> = Promise.resolve();
        const write = (text: string) => {
          writing = writing.then(() => stream.write(text));
        };
        let stale = false;
        let wake = () => {};
        const changed = () => {
          stale = true;
          wake();
        };
        const stopWatching = deps.catalogue.watch(changed);
        const reread = setInterval(changed, LISTINGS_STREAM_REREAD_MS);
        const heartbeat = setInterval(
          () => write(": heartbeat\n\n"),
          deps.settings.streamHeartbeatMs,
        );
        over.addEventListener("abort", () => wake(), { once: true });
        try {
          write(sseEvent("listings", sent));
          while (!over.aborted) {
            if (!stale) await new Promise<void>((resolve) => (wake = resolve));
            if (over.aborted) break;
            stale = false;
            const body = await creatorListingsBody(deps, wallet);
            if (body !== sent) {
              sent = body;
              write(sseEvent("listings", body));
            }
          }
          if (credential.signal.aborted) {
            write(sseEvent("error", JSON.stringify(errorBody(credential.signal.reason))));
          }
        } catch (error) {
          if (!isDatabaseUnavailable(error)) {
            deps.log.error("listings stream failed", {
              request_id: c.get("requestId"),
              error: error instanceof Error ? error.message : String(error),
            });
          }
          // Headers are sent: the failure can only be told in the stream; the client opens another.
          const failure = isDatabaseUnavailable(error)
            ? new ApiError(
                "service_unavailable",
                "The listings could not be read; open the stream again",
              )
            : new ApiError("internal_error", "Unexpected error; open the stream again");
          write(sseEvent("error", JSON.stringify(errorBody(failure))));
        } finally {
          credential.stop();
          stopWatching();
          clearInterval(reread);
          clearInterval(heartbeat);
          release();
          await writing.catch(() => {});
        }
      });
    },
  );

  /**
   * The runs of the caller's listings, any renter's, as `GET /v1/runs` lists a renter's own (never
   * an input or output), and per UTC day of the window (`since`/`until`, by default the last
   * `CREATOR_RUNS_DEFAULT_DAYS` days) the runs, failures and wei earned, for charts.
   */
  routes.get(
    "/me/runs",
    {
      tag: "Creators",
      summary: "The runs of the caller's listings, with daily totals",
      description:
        "The runs of every listing the caller's wallet created, any renter's, newest first, paged " +
        "like `GET /v1/runs` and with the same filters; never a renter's input or output. `daily` " +
        "totals every UTC day of the window (`since` to `until`, by default the 30 days before " +
        "now, at most 366 days) for the listings (or `agent_id`), whatever `status` or `cursor` say.",
      security: "bearer",
      scope: "read",
      query: runListQuery,
      answer: {
        status: 200,
        description: "A page of runs and the daily totals",
        schema: answers.creatorRunList,
      },
      errors: ["invalid_request", ...AUTHENTICATED],
    },
    async (c, reply) => {
      const query = parseQuery(c, runListQuery);
      const until = query.until ?? new Date();
      const since = query.since ?? new Date(until.getTime() - CREATOR_RUNS_DEFAULT_DAYS * DAY_MS);
      if (until.getTime() - since.getTime() > CREATOR_RUNS_MAX_DAYS * DAY_MS) {
        throw new ApiError(
          "invalid_request",
          `since: the window is at most ${CREATOR_RUNS_MAX_DAYS} days before until`,
        );
      }
      const { db } = c.get("deps");
      const scope = ofCreator(callerWallet(c).toLowerCase());
      const [page, daily] = await Promise.all([
        listRuns(db, scope, query),
        dailyRunTotals(db, scope, { since, until, onChainListingId: query.agent_id }),
      ]);
      return reply.written(c, runPageJson(page, { daily }));
    },
  );

  return routes;
}

/** Runs of the listings `wallet` created, as the indexer's projections know them. */
function ofCreator(wallet: string): SQL {
  const { listing } = projections;
  return sql`${runs.onChainListingId} in (select ${listing.id} from ${listing} where ${listing.creator} = ${wallet})`;
}

function sseEvent(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}
