import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { countedTransactions } from "../../lib/db/transactionCount.ts";
import type { Logger } from "../../lib/log.ts";

/** Every listener's connection is named `<LISTENER_APPLICATION> <id>` in `pg_stat_activity`. */
export const LISTENER_APPLICATION = "api-listener";
/** Waits between attempts to listen again, the last one repeated. */
const RETRY_MS = [0, 100, 250, 500, 1_000, 2_000];

export type PostgresListener = ReturnType<typeof createPostgresListener>;

/**
 * One connection of its own on which a process hears Postgres `NOTIFY`s. A notice sent while it is
 * not listening is never heard, so whoever keeps state that notices invalidate must drop it when
 * listening is lost (`onLost`) and may keep it again only once listening resumes (`onListening`).
 * Channels are named before `start()`; after a lost connection it listens again until stopped.
 */
export function createPostgresListener({ databaseUrl, log }: { databaseUrl: string; log: Logger }) {
  const id = randomBytes(8).toString("hex");
  const handlers = new Map<string, ((payload: string) => void)[]>();
  const listeningCallbacks: (() => void)[] = [];
  const lostCallbacks: (() => void)[] = [];
  const waitingToListen: (() => void)[] = [];
  let listening = false;
  let running = false;
  let connecting: Promise<void> | undefined;

  const options = {
    max: 1,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    ...countedTransactions(),
    connection: { application_name: `${LISTENER_APPLICATION} ${id}` },
    // postgres.js's own `listen` is built on this option, but says nothing of a lost connection.
    onnotify: (channel: string, payload: string) => {
      for (const handler of handlers.get(channel) ?? []) handler(payload);
    },
    onclose: () => {
      if (listening) {
        listening = false;
        log.warn("the Postgres listen connection was lost", { listener: id });
        for (const callback of lostCallbacks) callback();
      }
      if (running) connecting ??= listen();
    },
  };
  const client = postgres(databaseUrl, options as postgres.Options<Record<string, never>>);

  async function listen() {
    for (let attempt = 0; running; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS[attempt] ?? RETRY_MS.at(-1)));
      if (!running) break;
      try {
        // One statement, so that every channel is listened on the same connection.
        await client.unsafe([...handlers.keys()].map((channel) => `listen "${channel}";`).join(""));
        listening = true;
        log.info("listening for Postgres notices", { listener: id });
        for (const callback of listeningCallbacks) callback();
        for (const resolve of waitingToListen.splice(0)) resolve();
        break;
      } catch (error) {
        log.warn("could not listen for Postgres notices; retrying", {
          listener: id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    connecting = undefined;
  }

  return {
    /** Also in the connection's `application_name`, so that others can see it listens. */
    id,
    /** Calls `handler` (after those named before) with the payload of each notice on `channel` (a plain lowercase name). */
    on(channel: string, handler: (payload: string) => void) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel))
        throw new Error(`not a plain channel name: ${channel}`);
      if (running) throw new Error("channels are named before the listener starts");
      handlers.set(channel, [...(handlers.get(channel) ?? []), handler]);
    },
    /** Whether every channel is listened on: a notice sent now will be heard. */
    isListening: () => listening,
    /** Resolves once it is listening, at once if it is. */
    whenListening: () =>
      listening ? Promise.resolve() : new Promise<void>((resolve) => waitingToListen.push(resolve)),
    /** Called each time listening begins, on a fresh connection: notices sent before were missed. */
    onListening: (callback: () => void) => listeningCallbacks.push(callback),
    /** Called when the connection is lost: from now until `onListening`, notices are missed. */
    onLost: (callback: () => void) => lostCallbacks.push(callback),
    /** Sends a notice on the listener's own connection. */
    notify: async (channel: string, payload: string) => {
      await client`select pg_notify(${channel}, ${payload})`;
    },
    start() {
      running = true;
      connecting ??= listen();
    },
    async stop() {
      running = false;
      listening = false;
      await connecting;
      await client.end({ timeout: 1 });
    },
  };
}
