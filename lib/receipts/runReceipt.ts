import { type Hex, zeroHash } from "viem";
import { sha256Json } from "../../sdk/src/receipts/canonicalJson.ts";
import type { Receipt } from "../../sdk/src/receipts/receiptTypes.ts";
import type { RunRequest, RunRow } from "../db/appSchema.ts";
import { SETTLED_CHARGES } from "../runLedger/transitions.ts";

/** What a run's receipt is made of: its row's columns and the facts gathered as it ran. */
export type ReceiptRow = Pick<
  RunRow,
  | "id"
  | "onChainListingId"
  | "wallet"
  | "status"
  | "charge"
  | "costWei"
  | "output"
  | "receiptFacts"
  | "startedAt"
  | "finishedAt"
>;

/** Whether the run is over and its cost final: only then has it a receipt. */
export function hasReceipt(run: Pick<RunRow, "status" | "charge" | "finishedAt">): boolean {
  return (
    (run.status === "completed" || run.status === "failed") &&
    (SETTLED_CHARGES as readonly string[]).includes(run.charge) &&
    run.finishedAt !== null
  );
}

/**
 * The receipt of a finished run whose cost is final (`hasReceipt`), as docs/receipts.md defines it.
 * A run its worker never ended (refused before it started, ended by the sweeper) has no agent facts:
 * their fields are empty, and its output's digest is that of the output its row keeps.
 */
export function runReceipt(run: ReceiptRow): Receipt {
  const facts = run.receiptFacts ?? {};
  return {
    run_id: run.id,
    listing_id: run.onChainListingId.toLowerCase() as Hex,
    renter: run.wallet.toLowerCase() as Hex,
    manifest_cid: facts.manifest_cid ?? "",
    vendor: facts.vendor ?? "",
    model: facts.model ?? "",
    endpoint_sha256: facts.endpoint_sha256 ?? zeroHash,
    task_sha256: facts.task_sha256 ?? zeroHash,
    input_sha256: facts.input_sha256 ?? zeroHash,
    output_sha256: facts.output_sha256 ?? sha256Json(run.output ?? ""),
    input_tokens: facts.input_tokens ?? null,
    output_tokens: facts.output_tokens ?? null,
    started_at_ms: run.startedAt?.getTime() ?? null,
    finished_at_ms: run.finishedAt?.getTime() ?? 0,
    status: run.status === "completed" ? "completed" : "failed",
    cost_wei: String(run.costWei),
  };
}

/** The receipt facts a run's request gives, recorded at its admission (before the request is dropped). */
export function requestFacts(request: RunRequest) {
  return {
    task_sha256: sha256Json(request.task),
    input_sha256: sha256Json(request.input ?? request.inputUri ?? null),
  };
}
