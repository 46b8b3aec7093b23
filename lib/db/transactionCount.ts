// Counts the Postgres transactions this process makes, for the execution benchmark: with
// `PG_TRANSACTION_COUNT_DIR` set, every postgres.js client made with `countedTransactions()` counts
// them by their first statement, and writes the counts to `<dir>/<pid>` (JSON) every 100 ms.
// Unset, it costs nothing.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const WRITE_EVERY_MS = 500;
/** How much of a transaction's first statement names it. */
const NAME_CHARS = 90;

/** Transactions so far, by the text that begins them. */
const counts = new Map<string, number>();
let changed = false;
/** Connections (postgres.js ids, unique in the process) inside an explicit transaction. */
const inTransaction = new Map<number, { named: boolean }>();

/**
 * postgres.js options that count transactions: a `begin` and its statements up to `commit` or
 * `rollback` are one (named `begin; ` and its first statement), every statement outside them another
 * (Postgres runs it in a transaction of its own). Empty unless `PG_TRANSACTION_COUNT_DIR` is set.
 */
export function countedTransactions(): { debug?: (connection: number, query: string) => void } {
  const dir = process.env.PG_TRANSACTION_COUNT_DIR;
  if (!dir) return {};
  startWriting(dir);
  return { debug: count };
}

function count(connection: number, query: string) {
  // Only the start names it: the rest of a long statement is not worth the CPU it would take here.
  const text = query
    .slice(0, 4 * NAME_CHARS)
    .replace(/\s+/g, " ")
    .trim();
  const keyword = text.slice(0, 12).toLowerCase();
  const transaction = inTransaction.get(connection);
  if (keyword.startsWith("begin")) {
    inTransaction.set(connection, { named: false });
  } else if (keyword === "commit" || keyword === "rollback") {
    if (transaction && !transaction.named) add("begin; (empty)");
    inTransaction.delete(connection);
  } else if (!transaction) {
    add(text.slice(0, NAME_CHARS));
  } else if (!transaction.named) {
    transaction.named = true;
    add(`begin; ${text.slice(0, NAME_CHARS)}`);
  }
}

function add(name: string) {
  counts.set(name, (counts.get(name) ?? 0) + 1);
  changed = true;
}

let writing = false;

function startWriting(dir: string) {
  if (writing) return;
  writing = true;
  setInterval(() => {
    if (!changed) return;
    changed = false;
    writeFileSync(join(dir, String(process.pid)), JSON.stringify(Object.fromEntries(counts)));
  }, WRITE_EVERY_MS).unref();
}
