import type postgres from "postgres";
import { DatabaseDeadlineError, isConnectionFailure } from "./databaseUnavailable.ts";

type Sql = postgres.Sql;

export type BoundedPool = {
  /** What drizzle uses of a postgres.js client (`unsafe`, `begin`, `options`), bounded. */
  client: Sql;
  /** Ends every connection, waiting up to `timeoutSeconds` for calls in flight. */
  close: (timeoutSeconds?: number) => Promise<void>;
};

/**
 * A pool of `size` connections, each a postgres.js client of its own lent to one call at a time, so
 * that one connection can be given up without the others. A call, from waiting for a connection to
 * its last row (a transaction: to its commit), fails with `DatabaseDeadlineError` once the server has
 * answered no call of the pool for `silenceMs` since the call began, and then no `select 1` on a
 * connection of its own within `probeMs`: a stalled server, not a busy pool, whose calls keep coming
 * back while the later ones wait their turn, nor one whose calls all wait on a lock another process
 * holds. The connection a failed call held is ended and replaced, since a server that does not answer
 * does not answer a cancel either; one that failed is replaced too, so the next call connects afresh
 * rather than after postgres.js's growing reconnect backoff.
 */
export function boundedPool({
  size,
  silenceMs,
  probeMs,
  open,
}: {
  size: number;
  silenceMs: number;
  probeMs: number;
  /** A postgres.js client of one connection (`max: 1`); it connects on its first call. */
  open: () => Sql;
}): BoundedPool {
  const live = new Set<Sql>();
  const idle: Sql[] = [];
  const waiting: ((sql: Sql) => void)[] = [];
  /** When a call last came back from the server, in `performance.now()` time. */
  let answeredAt = performance.now();
  /** The types drizzle parses and serializes itself: `drizzle()` writes them here, once. */
  const options = { parsers: {}, serializers: {} } as Sql["options"];

  function connection(): Sql {
    const sql = open();
    Object.assign(sql.options.parsers, options.parsers);
    Object.assign(sql.options.serializers, options.serializers);
    live.add(sql);
    return sql;
  }

  function giveBack(sql: Sql) {
    const next = waiting.shift();
    if (next) next(sql);
    else idle.push(sql);
  }

  function replace(sql: Sql) {
    live.delete(sql);
    void sql.end({ timeout: 0 }).catch(() => {});
    giveBack(connection());
  }

  /** The connection that asks a silent pool's server whether it answers at all. */
  let prober: Sql | undefined;
  let probing: Promise<boolean> | undefined;

  /** Whether the server answers `select 1` within `probeMs`; one probe at a time, shared. */
  function serverAnswers(): Promise<boolean> {
    probing ??= probe().finally(() => {
      probing = undefined;
    });
    return probing;
  }

  async function probe(): Promise<boolean> {
    prober ??= open();
    const sql = prober;
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      sql.unsafe("select 1").then(
        () => true,
        (error: unknown) => !isConnectionFailure(error),
      ),
      new Promise<false>((resolve) => {
        // Sockets first, as for a call: an answer that came while the process was late counts.
        timer = setTimeout(() => setImmediate(resolve, false), probeMs);
      }),
    ]);
    clearTimeout(timer);
    if (answered) {
      answeredAt = performance.now();
    } else {
      prober = undefined;
      void sql.end({ timeout: 0 }).catch(() => {});
    }
    return answered;
  }

  function withConnection<T>(use: (sql: Sql) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const startedAt = performance.now();
      let held: Sql | undefined;
      let over = false;
      let timer: NodeJS.Timeout;
      const start = (sql: Sql) => {
        held = sql;
        new Promise<T>((settle) => settle(use(sql))).then(
          (value) => {
            answeredAt = performance.now();
            if (over) return;
            over = true;
            clearTimeout(timer);
            giveBack(sql);
            resolve(value);
          },
          (error: unknown) => {
            const failed = isConnectionFailure(error);
            if (!failed) answeredAt = performance.now();
            if (over) return;
            over = true;
            clearTimeout(timer);
            if (failed) replace(sql);
            else giveBack(sql);
            reject(error);
          },
        );
      };
      const silentUntil = () => Math.max(startedAt, answeredAt) + silenceMs;
      const giveUpIfSilent = () => {
        if (over) return;
        const left = silentUntil() - performance.now();
        if (left > 0) {
          timer = setTimeout(check, left);
          return;
        }
        void serverAnswers().then((answers) => (answers ? check() : giveUp()));
      };
      const giveUp = () => {
        if (over) return;
        over = true;
        if (held) replace(held);
        else waiting.splice(waiting.indexOf(start), 1);
        reject(new DatabaseDeadlineError(`The database answered nothing for ${silenceMs} ms`));
      };
      // A timer fires before the event loop reads its sockets: answers that came while a busy
      // process was late are read first, so its own lateness is not taken for the server's silence.
      const check = () => setImmediate(giveUpIfSilent);
      timer = setTimeout(check, silenceMs);
      const free = idle.pop() ?? (live.size < size ? connection() : undefined);
      if (free) start(free);
      else waiting.push(start);
    });
  }

  const client = {
    options,
    unsafe: (query: string, parameters?: postgres.ParameterOrJSON<never>[]) => {
      let result: Promise<unknown> | undefined;
      // drizzle awaits the query for objects, or calls `values()` for arrays: run it either way, once.
      const rows = (asArrays: boolean) =>
        (result ??= withConnection((sql) => {
          const pending = sql.unsafe(query, parameters);
          return asArrays ? pending.values() : pending;
        }));
      return {
        values: () => rows(true),
        // biome-ignore lint/suspicious/noThenProperty: a postgres.js query is a thenable
        then: <A, B>(
          onRows?: (rows: unknown) => A | PromiseLike<A>,
          onError?: (error: unknown) => B | PromiseLike<B>,
        ) => rows(false).then(onRows, onError),
      };
    },
    begin: (run: (sql: postgres.TransactionSql) => Promise<unknown>) =>
      withConnection((sql) => sql.begin(run)),
  };

  return {
    // Only what drizzle's postgres-js session calls is there: typed as the client it stands for.
    client: client as unknown as Sql,
    close: async (timeoutSeconds = 5) => {
      const all = prober ? [...live, prober] : [...live];
      prober = undefined;
      await Promise.all(all.map((sql) => sql.end({ timeout: timeoutSeconds })));
      live.clear();
    },
  };
}
