import { keccak256, sha256, stringToBytes, toHex } from "viem";
import { sha256Json } from "../../../sdk/src/receipts/canonicalJson.ts";
import type { Receipt } from "../../../sdk/src/receipts/receiptTypes.ts";

/** A completed run's receipt, its values distinct per `n`: every field set, none zero. */
export function sampleReceipt(n = 1): Receipt {
  return {
    run_id: `run_${n}`,
    listing_id: keccak256(toHex(`listing ${n}`)),
    renter: `0x${"ab".repeat(19)}${n.toString(16).padStart(2, "0")}`,
    manifest_cid: `bafy-manifest-${n}`,
    vendor: "anthropic",
    model: "claude-sonnet-4-5",
    endpoint_sha256: sha256(stringToBytes(`https://agent.example/${n}`)),
    task_sha256: sha256Json({ prompt: `task ${n}` }),
    input_sha256: sha256Json({ code: `contract C${n} {}` }),
    output_sha256: sha256Json({ findings: [`finding ${n}`] }),
    input_tokens: 1200 + n,
    output_tokens: 340 + n,
    started_at_ms: 1_767_000_000_000 + n,
    finished_at_ms: 1_767_000_004_000 + n,
    status: "completed",
    cost_wei: (10_000_000_000_000_000n + BigInt(n)).toString(),
  };
}
