export type RpcCall = { method: string; params: unknown[] };

/** One HTTP request carrying many JSON-RPC calls; results in call order, any error throws. */
export async function rpcBatch(rpcUrl: string, calls: RpcCall[]): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }))),
  });
  const answers = (await response.json()) as {
    id: number;
    result?: unknown;
    error?: { message: string };
  }[];
  const results: unknown[] = new Array(calls.length);
  for (const answer of answers) {
    if (answer.error) {
      const call = calls[answer.id];
      throw new Error(`${call?.method} #${answer.id}: ${answer.error.message}`);
    }
    results[answer.id] = answer.result;
  }
  return results;
}
