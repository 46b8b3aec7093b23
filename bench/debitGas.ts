// Gas per debit as the settlement pays it: per-task runs kept `concurrency` at a time, then each
// `consumeQueries` transaction that debited them read back from its receipt.
import postgres from "postgres";
import type { Hex, PublicClient } from "viem";
import { toApiListingId } from "../lib/ids/listingId.ts";
import type { ExecutionFixture } from "./executionFixture.ts";

export type DebitGas = {
  concurrency: number;
  runs: number;
  /** The settlement's debit transactions, each with its gas and the debits it made. */
  transactions: { gasUsed: bigint; debits: number }[];
  /** The transactions that anchored these runs' receipts and debited nothing, with their gas. */
  anchorTransactions: { gasUsed: bigint }[];
};

/** How long the runs' receipts may take to be anchored after their last debit. */
const ANCHORED_WITHIN_MS = 30_000;

/**
 * Runs `runs` per-task tasks through POST /v1/execute from `concurrency` closed-loop clients (each
 * sends its next when answered: the answer comes once the run is debited), then reads the receipts
 * of the transactions that debited them. Every one of those transactions must hold only these runs.
 */
export async function measureDebitGas(options: {
  apiUrl: string;
  databaseUrl: string;
  client: PublicClient;
  fixture: ExecutionFixture;
  concurrency: number;
  runs: number;
}): Promise<DebitGas> {
  const { fixture, concurrency } = options;
  const agentId = toApiListingId(fixture.listings["per-task"]);
  const runIds: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < options.runs) {
        const index = next++;
        const response = await fetch(`${options.apiUrl}/v1/execute`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${fixture.keys[index % fixture.keys.length]}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ agent_id: agentId, task: `gas ${index}`, input: { text: "x" } }),
        });
        const body = (await response.json()) as { run_id?: string; status?: string };
        if (response.status !== 200 || body.status !== "completed" || !body.run_id) {
          throw new Error(`a per-task run did not complete: ${JSON.stringify(body)}`);
        }
        runIds.push(body.run_id);
      }
    }),
  );
  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const batches = await sql<{ tx: Hex; ours: number; all: number }[]>`
      select debit_tx as tx,
        count(*) filter (where id = any(${runIds}) and charge = 'debited')::int as ours,
        count(*)::int as all
      from app.runs
      where debit_tx in (select debit_tx from app.runs where id = any(${runIds}))
      group by debit_tx`;
    const debited = batches.reduce((sum, batch) => sum + batch.ours, 0);
    if (debited !== runIds.length) {
      throw new Error(`${debited} of ${runIds.length} runs debited`);
    }
    const transactions = await Promise.all(
      batches.map(async (batch) => {
        if (batch.all !== batch.ours) {
          throw new Error(
            `debit ${batch.tx} holds ${batch.all - batch.ours} runs besides these debits`,
          );
        }
        const receipt = await options.client.getTransactionReceipt({ hash: batch.tx });
        return { gasUsed: receipt.gasUsed, debits: batch.ours };
      }),
    );
    const anchorTransactions = await Promise.all(
      (await anchorOnlyTransactions(sql, runIds)).map(async (hash) => ({
        gasUsed: (await options.client.getTransactionReceipt({ hash })).gasUsed,
      })),
    );
    return { concurrency, runs: runIds.length, transactions, anchorTransactions };
  } finally {
    await sql.end();
  }
}

/**
 * Once every run's receipt is anchored, the anchors' transactions that carried no debit (a batch of
 * debited runs' receipts anchored alone, when no debit was waiting to carry it).
 */
async function anchorOnlyTransactions(sql: postgres.Sql, runIds: string[]): Promise<Hex[]> {
  const deadline = Date.now() + ANCHORED_WITHIN_MS;
  for (;;) {
    const [row] = await sql<{ waiting: number }[]>`
      select count(*)::int as waiting from app.runs r
        left join app.anchors a on a.root = r.anchor_root
      where r.id = any(${runIds}) and (a.status is distinct from 'anchored')`;
    const waiting = row?.waiting ?? 0;
    if (waiting === 0) break;
    if (Date.now() > deadline) throw new Error(`${waiting} runs' receipts were never anchored`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const rows = await sql<{ tx: Hex }[]>`
    select distinct a.tx from app.anchors a
    where a.root in (select anchor_root from app.runs where id = any(${runIds}))
      and not exists (select 1 from app.runs d where d.debit_tx = a.tx)`;
  return rows.map(({ tx }) => tx);
}
