// The Postgres listen connection of an API process (api/process/postgresListener.ts), for tests that
// break the path revocation notices and rate-limit recalls travel on.
import { sql } from "drizzle-orm";
import { LISTENER_APPLICATION } from "../../api/process/postgresListener.ts";
import type { Api } from "../../devStack/startApi.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { captureOutput } from "./processOutput.ts";

const LISTENING = "listening for Postgres notices";

/** One more API process on `stack`, once it listens, with its listener's id. */
export async function addListeningApi(stack: Stack): Promise<{ api: Api; listenerId: string }> {
  const output = captureOutput();
  const api = await stack.addApi({}, output.onOutput);
  for (let waited = 0; waited < 10_000; waited += 20) {
    const entry = output.entries().find((line) => line.message === LISTENING);
    if (typeof entry?.listener === "string") return { api, listenerId: entry.listener };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the API process did not start listening for Postgres notices");
}

/** The pid of the Postgres backend serving that listener now; undefined while it has none. */
export async function listenerBackend(stack: Stack, listenerId: string) {
  const rows = (await stack.db.execute(
    sql`select pid from pg_stat_activity
        where application_name = ${`${LISTENER_APPLICATION} ${listenerId}`}`,
  )) as unknown as { pid: number }[];
  return rows[0]?.pid;
}

/** Waits until that listener has a backend other than `previous` (it listens again). */
export async function nextListenerBackend(stack: Stack, listenerId: string, previous: number) {
  for (let waited = 0; waited < 10_000; waited += 20) {
    const pid = await listenerBackend(stack, listenerId);
    if (pid !== undefined && pid !== previous) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the listener did not connect again");
}
