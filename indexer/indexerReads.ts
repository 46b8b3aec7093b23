/** How long a read of Ponder or the node may take before the check counts it as unanswered. */
const READ_DEADLINE_MS = 2_000;

/** The last block Ponder's live sync took in: its `ponder_sync_block` gauge on `/metrics`. */
export async function ponderSyncedBlock(ponderUrl: string): Promise<bigint> {
  const response = await fetch(`${ponderUrl}/metrics`, {
    signal: AbortSignal.timeout(READ_DEADLINE_MS),
  });
  const text = await response.text();
  const line = /^ponder_sync_block\{[^}]*\} (\d+)$/m.exec(text);
  if (!line?.[1]) throw new Error("Ponder reports no synced block yet");
  return BigInt(line[1]);
}

/** The chain's head, by `eth_blockNumber`. */
export async function chainHead(rpcUrl: string): Promise<bigint> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
    signal: AbortSignal.timeout(READ_DEADLINE_MS),
  });
  const { result } = (await response.json()) as { result?: unknown };
  if (typeof result !== "string") throw new Error("the node answered no block number");
  return BigInt(result);
}
