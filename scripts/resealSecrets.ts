import type postgres from "postgres";
import { openRecord, sealRecord } from "../lib/crypto/sealedRecord.ts";
import { sealingKeyId } from "../lib/crypto/sealingKeyId.ts";

/** Every sealed column of the `app` schema; each row is sealed to its own primary key. */
const SEALED_COLUMNS = [
  { table: "jobs", key: "id", sealed: "request" },
  { table: "agent_secrets", key: "on_chain_listing_id", sealed: "sealed" },
  { table: "agent_versions", key: "id", sealed: "sealed" },
  { table: "webhook_endpoints", key: "id", sealed: "secret" },
] as const;

export type ResealReport = {
  resealed: number;
  /** Rows already under the new key: a run after an interrupted one skips them. */
  alreadyUnderNewKey: number;
  /** Rows left as they were, each with why: sealed under a third key, or not opening. */
  left: string[];
};

const ROWS_PER_BATCH = 100;

/**
 * Seals every sealed row of the `app` schema under `to` instead of `from`, each row in a short
 * transaction of its own holding its lock, so a run can be interrupted at any point and run again,
 * and a worker settling a job meanwhile is never overwritten. Rows already under `to` are skipped;
 * rows under neither key are left and reported.
 */
export async function resealSecrets(
  sql: postgres.Sql,
  { from, to }: { from: Uint8Array; to: Uint8Array },
): Promise<ResealReport> {
  const [fromId, toId] = [sealingKeyId(from), sealingKeyId(to)];
  const report: ResealReport = { resealed: 0, alreadyUnderNewKey: 0, left: [] };

  for (const column of SEALED_COLUMNS) {
    const table = sql(`app.${column.table}`);
    const [key, sealed] = [sql(column.key), sql(column.sealed)];
    const [{ count }] = (await sql`
      select count(*)::int as count from ${table}
      where ${sealed} is not null and sealing_key_id = ${toId}`) as unknown as [{ count: number }];
    report.alreadyUnderNewKey += count;

    let after = "";
    for (;;) {
      const ids = (await sql`
        select ${key} as id from ${table}
        where ${sealed} is not null and sealing_key_id is distinct from ${toId} and ${key} > ${after}
        order by ${key} limit ${ROWS_PER_BATCH}`) as unknown as { id: string }[];
      if (ids.length === 0) break;
      for (const { id } of ids) {
        const outcome = await sql.begin(async (tx) => {
          const [row] = (await tx`
            select ${sealed} as sealed, sealing_key_id from ${table} where ${key} = ${id}
            for update`) as unknown as { sealed: Buffer | null; sealing_key_id: string | null }[];
          // Settled, or resealed by another run, since the batch was read.
          if (!row?.sealed) return "gone";
          if (row.sealing_key_id === toId) return "already";
          if (row.sealing_key_id !== null && row.sealing_key_id !== fromId) {
            return `sealed under sealing key ${row.sealing_key_id}, neither --from (${fromId}) nor --to (${toId})`;
          }
          let plaintext: Buffer;
          try {
            plaintext = openRecord(
              from,
              { sealed: row.sealed, sealingKeyId: row.sealing_key_id },
              id,
            );
          } catch (error) {
            return error instanceof Error ? error.message : String(error);
          }
          const resealed = sealRecord(to, plaintext, id);
          await tx`
            update ${table} set ${sealed} = ${resealed.sealed}, sealing_key_id = ${resealed.sealingKeyId}
            where ${key} = ${id}`;
          return "resealed";
        });
        if (outcome === "resealed") report.resealed++;
        else if (outcome === "already") report.alreadyUnderNewKey++;
        else if (outcome !== "gone") report.left.push(`${column.table} ${id}: ${outcome}`);
      }
      after = ids[ids.length - 1]?.id ?? after;
    }
  }
  return report;
}
