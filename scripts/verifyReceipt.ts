// `npm run verify-receipt -- <receipt.json> [--rpc-url URL] [--contract 0x…]`: checks a run's receipt
// document (the body of GET /v1/runs/:run_id/receipt, docs/receipts.md) against the chain: its
// signature by the contract's receipts signer, its Merkle proof, its root's anchor block. The node is
// --rpc-url, else RPC_URL, else http://127.0.0.1:8545. Exits 0 when valid, 1 when not, 2 when it
// could not check (no such file, not JSON, a bad option, a node that does not answer).
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { ChainReadError } from "../sdk/src/receipts/marketplaceReads.ts";
import { type ReceiptVerification, verifyReceipt } from "../sdk/src/receipts/verifyReceipt.ts";

const USAGE = "usage: npm run verify-receipt -- <receipt.json> [--rpc-url URL] [--contract 0x…]";
const DEFAULT_RPC_URL = "http://127.0.0.1:8545";

/** What keeps the check from being made: said in one line, exit status 2. */
class CannotCheck extends Error {}

async function main(): Promise<number> {
  const { file, rpcUrl, contract } = options();
  const document = await readDocument(file);
  const result = await verifyReceipt(document, { rpcUrl, contract }).catch((error: unknown) => {
    if (error instanceof ChainReadError)
      throw new CannotCheck(`cannot read the chain: ${error.message}`);
    throw error;
  });
  console.log(report(document, result));
  return result.valid ? 0 : 1;
}

function options(): { file: string; rpcUrl: string; contract?: `0x${string}` } {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions();
  } catch (error) {
    throw new CannotCheck(`${(error as Error).message}; ${USAGE}`);
  }
  const { values, positionals } = parsed;
  const [file, ...more] = positionals;
  if (file === undefined || more.length > 0) throw new CannotCheck(USAGE);
  const contract = values.contract;
  if (contract !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(contract)) {
    throw new CannotCheck(`--contract ${contract} is not a 0x address`);
  }
  const rpcUrl = values["rpc-url"] ?? process.env.RPC_URL ?? DEFAULT_RPC_URL;
  return { file, rpcUrl, contract: contract as `0x${string}` | undefined };
}

function parseOptions() {
  return parseArgs({
    allowPositionals: true,
    strict: true,
    options: { "rpc-url": { type: "string" }, contract: { type: "string" } },
  });
}

async function readDocument(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CannotCheck(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CannotCheck(`${file} is not JSON`);
  }
}

function report(document: unknown, result: ReceiptVerification): string {
  const { receipt, anchor } = document as {
    receipt?: { run_id?: unknown };
    anchor?: { block?: unknown; transaction?: unknown } | null;
  };
  const mark = (holds: boolean) => (holds ? "yes" : "no");
  const where = result.anchored
    ? ` (block ${anchor?.block}, transaction ${anchor?.transaction})`
    : "";
  return [
    `receipt of run ${String(receipt?.run_id ?? "?")}`,
    `  signature  ${mark(result.signature)}`,
    `  inclusion  ${mark(result.inclusion)}`,
    `  anchored   ${mark(result.anchored)}${where}`,
    ...result.problems.map((problem) => `  - ${problem}`),
    result.valid ? "valid" : "NOT valid",
  ].join("\n");
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  },
);
