import postgres from "postgres";

/** How long a read of Ponder or the node may take before the check counts it as unanswered. */
const READ_DEADLINE_MS = 2_000;

/**
 * Runs `read` with a signal that aborts it at the deadline, and fails then whether or not the read
 * heeds the signal: a check must never wait longer than its reads' deadline.
 */
function withinDeadline<T>(read: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(READ_DEADLINE_MS);
  const expired = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  return Promise.race([read(signal), expired]);
}

/**
 * The last block whose events the projections include: the checkpoint Ponder's `/status` reads from
 * its database. (Its `ponder_sync_block` gauge is no measure: it can reach a block whose events
 * still wait on a stuck RPC queue.)
 */
export function ponderIndexedBlock(ponderUrl: string): Promise<bigint> {
  return withinDeadline(async (signal) => {
    const response = await fetch(`${ponderUrl}/status`, { signal });
    const status = (await response.json()) as Record<string, { block?: { number?: unknown } }>;
    const indexed = Object.values(status)[0]?.block?.number;
    if (typeof indexed !== "number") throw new Error("Ponder reports no indexed block yet");
    return BigInt(indexed);
  });
}

/** The chain's head, by `eth_blockNumber`. */
export function chainHead(rpcUrl: string): Promise<bigint> {
  return withinDeadline(async (signal) => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
      signal,
    });
    const { result } = (await response.json()) as { result?: unknown };
    if (typeof result !== "string") throw new Error("the node answered no block number");
    return BigInt(result);
  });
}

/**
 * Pings the database over one connection of its own, which `close` ends. A ping still waiting on a
 * frozen database is awaited again rather than joined by another.
 */
export function databasePinger(databaseUrl: string) {
  const sql = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 2,
    connection: { application_name: "indexer supervisor" },
  });
  let waiting: Promise<unknown> | undefined;
  return {
    ping: () => {
      waiting ??= sql`SELECT 1`.finally(() => {
        waiting = undefined;
      });
      const answer = waiting;
      return withinDeadline(async () => {
        await answer;
      });
    },
    close: () => sql.end({ timeout: 1 }),
  };
}
