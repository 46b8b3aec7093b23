// The API's size and time limits, in one place.

const KB = 1024;

/** No request body is larger: a manifest may be exactly this large. */
export const MAX_BODY_BYTES = 64 * KB;
/** Sign-in and key-creation bodies: a wallet, a challenge or label, a signature. */
export const MAX_SMALL_BODY_BYTES = 16 * KB;

/** An execution's `task`, in UTF-8 bytes. */
export const MAX_TASK_BYTES = 16 * KB;
/** An execution's `input`, as JSON text in UTF-8 bytes (a string input counts with its quotes). */
export const MAX_INPUT_BYTES = 48 * KB;
/** Levels of objects and arrays in an execution's `input`, as for every manifest field. */
export const MAX_INPUT_DEPTH = 32;
/** An execution's `input_uri`, in characters. */
export const MAX_INPUT_URI_LENGTH = 2048;

/** How messages name a limit: in bytes, and in KB. */
export function describeBytes(bytes: number): string {
  return `${bytes} bytes (${bytes / KB} KB)`;
}

/** A client gets this long to send a request's headers: a slow client cannot hold connections. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** …and this long to send the whole request. */
export const REQUEST_TIMEOUT_MS = 30_000;

// Every wait on a dependency ends in time for a request to be answered within 3 s: a 503 with
// `Retry-After` when the dependency did not answer (docs/operations.md).

/** One read of the chain, its retry included, gives up after this long… */
export const CHAIN_READ_DEADLINE_MS = 2_000;
/** …within which a read that failed fast (a dropped connection, a 502) is tried this many times more. */
export const CHAIN_READ_RETRIES = 1;
/** The node is asked for its latest block this often over the socket that announces new ones… */
export const CHAIN_HEAD_PING_MS = 500;
/** …and its announced head is trusted this long after its last answer (api/chain/chainHeads.ts). */
export const CHAIN_HEAD_ALIVE_MS = 1_500;
/** A closed head subscription is opened again after this long. */
export const CHAIN_HEAD_RECONNECT_MS = 2_000;
/**
 * A call to Postgres, waiting for a connection included, gives up once the server has answered no
 * call of the process for this long: stalled, not busy (a busy pool's calls keep coming back)…
 */
export const DATABASE_SILENCE_MS = 1_500;
/**
 * …and then answered no `select 1` on a connection of its own within this long: every call may be
 * waiting on a lock another process holds, and the server is not stalled while it answers that.
 */
export const DATABASE_PROBE_MS = 500;
/**
 * …and the server ends a statement running this long itself, so that a runaway one given up on does
 * not run on. Lock waits count: a burst of one credential's admissions queues on its advisory lock,
 * its transactions completing one after another, and must not be cut short.
 */
export const DATABASE_STATEMENT_TIMEOUT_MS = 5_000;
/** Connections of an API process. */
export const DATABASE_CONNECTIONS = 10;
/** The server ends a session idle inside a transaction this long: its client is gone, its locks go. */
export const DATABASE_IDLE_IN_TRANSACTION_MS = 10_000;
/** The `Retry-After` of a 503 for a dependency that did not answer. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/** Threads an API process checks tasks' input on; a check waits for a free one… */
export const INPUT_VALIDATION_THREADS = 2;
/** …of which one listing's checks hold at most this many, the other kept for other listings… */
export const INPUT_CHECKS_BUSY_PER_LISTING = Math.max(1, INPUT_VALIDATION_THREADS - 1);
/**
 * …waiting in their listing's queue, listings taking turns, for at most this long (then 503 with
 * `Retry-After`; docs/decisions.md, "Waiting for an input check")…
 */
export const INPUT_CHECK_WAIT_MS = 2_000;
/** …and at most this many of one listing's checks wait at once; one more is refused (503) at once. */
export const INPUT_CHECKS_WAITING_PER_LISTING = 1_024;
/**
 * One input's check against its compiled schema gets this long before its thread is terminated and
 * the input is a mismatch: a tenth of the compile budget, `SCHEMA_COMPILE_BUDGET_MS`.
 */
export const INPUT_CHECK_BUDGET_MS = 200;
/** An idle stream of `/v1/execute/stream` gets a comment line this often, so proxies keep it open. */
export const STREAM_HEARTBEAT_MS = 15_000;
/** How often a waiting request reads its run again, in case a notice was lost. */
export const RUN_REREAD_MS = 1_000;
/**
 * Past a run's own time limit, how long an execution waits for its slot, outcome and debit before
 * it answers 503 with the run id; the run goes on and `GET /v1/runs/:run_id` will have it.
 */
export const RUN_ANSWER_GRACE_MS = 120_000;
/** How long admission waits for debits in flight before deciding a balance does not cover a run. */
export const DEBIT_WAIT_MS = 30_000;
/** The `Retry-After` of a 503 an execution answers: no slot freed, or the answer is still coming. */
export const EXECUTION_RETRY_AFTER_SECONDS = 5;

/**
 * A cached API key is used this long without asking Postgres again: the bound on how long a
 * revocation whose notice was lost (a listen connection that failed unnoticed) can go unheard.
 */
export const API_KEY_REVALIDATE_MS = 5_000;
/** Keys an API process keeps cached; past this many, those checked longest ago go first. */
export const API_KEY_CACHE_SIZE = 100_000;
/** How long a revocation waits for every listening API process to confirm it dropped the key. */
export const REVOCATION_WAIT_MS = 2_000;

/** Distinct catalogue answers an API process keeps between two changes of the catalogue. */
export const CATALOGUE_ANSWERS_KEPT = 500;
/**
 * A kept catalogue answer is loaded again after this long even if no notice said the catalogue
 * changed: the bound for a change that sends none (docs/decisions.md, "Catalogue answers").
 */
export const CATALOGUE_ANSWER_MAX_AGE_MS = 1_000;

/**
 * The most rate-limit units a process leases at once: this many, or `MAX_LEASE_SHARE` of the limit
 * when that is more, so that a large limit costs a statement per 1/64th of it, not per 64 requests
 * (docs/decisions.md, "Rate limits across processes").
 */
export const MAX_LEASE = 64;
export const MAX_LEASE_SHARE = 1 / 64;
/**
 * How long a request the window's last units are recalled for waits for them to come back: long
 * enough for a loaded process to answer its recall, since a request refused while units are still
 * out is a 429 the client did not earn…
 */
export const RECALL_WAIT_MS = 3_000;
/** …asking again this often, in case a notice that they did was missed. */
export const RECALL_POLL_MS = 25;

/** A review's or reply's text, in characters (code points). */
export const MAX_REVIEW_TEXT_LENGTH = 2_000;
/** Reviews, edits and replies a wallet may write per minute, across processes. */
export const REVIEW_WRITES_PER_MINUTE = 5;

/** `GET /v1/creators/me/listings/events` streams a wallet may hold open at once in one API process… */
export const LISTINGS_STREAMS_PER_WALLET = 5;
/** …and that one API process holds open at once, all wallets together… */
export const LISTINGS_STREAMS_PER_PROCESS = 1_000;
/** …beyond which a stream is refused (429, or 503 for the process) with this `Retry-After`. */
export const LISTINGS_STREAM_RETRY_AFTER_SECONDS = 5;
/**
 * An open listings stream reads its listings again this often without a notice: the bound for a
 * change that sends none (a reorg, a views schema moved to a new build), as for catalogue answers.
 */
export const LISTINGS_STREAM_REREAD_MS = 5_000;

/** `GET /v1/creators/me/runs`: the days its `daily` totals cover when the query names no window… */
export const CREATOR_RUNS_DEFAULT_DAYS = 30;
/** …and the longest window it totals, a year and a day (one chart point per day). */
export const CREATOR_RUNS_MAX_DAYS = 366;

/** Webhook endpoints one wallet may hold at once; one more is refused (docs/decisions.md). */
export const MAX_WEBHOOK_ENDPOINTS_PER_WALLET = 10;
