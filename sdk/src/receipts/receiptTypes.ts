/** 0x-prefixed hex, as viem's `Hex` (declared here: the SDK's types need no viem installed). */
export type Hex = `0x${string}`;
/** A 0x-prefixed 20-byte address, as viem's `Address`. */
export type Address = `0x${string}`;

/**
 * A finished run's receipt as the API sends it (docs/receipts.md): the values the receipts key signs,
 * under snake_case names.
 */
export type Receipt = {
  run_id: string;
  /** The on-chain listing id, 32 bytes. */
  listing_id: Hex;
  /** Lowercase. */
  renter: Address;
  manifest_cid: string;
  vendor: string;
  /** "" for a connected agent. */
  model: string;
  /** SHA-256 of the entrypoint URL; all zero for a declarative agent. */
  endpoint_sha256: Hex;
  task_sha256: Hex;
  input_sha256: Hex;
  output_sha256: Hex;
  /** null when the vendor reported none (0 in the signed struct). */
  input_tokens: number | null;
  output_tokens: number | null;
  /** Unix milliseconds; null for a run that never started (0 in the signed struct). */
  started_at_ms: number | null;
  finished_at_ms: number;
  status: "completed" | "failed";
  /** Decimal. */
  cost_wei: string;
};

/** Where a receipt's batch is anchored: the Merkle root, the leaf's proof, and the transaction. */
export type ReceiptAnchor = { root: Hex; proof: Hex[]; transaction: Hex; block: number };

/** The body of `GET /v1/runs/:run_id/receipt`. */
export type ReceiptDocument = {
  receipt: Receipt;
  /** The EIP-712 signature of `receipt` by the receipts key. */
  signature: Hex;
  /** Informational: a verifier takes the signer from the contract's `receiptsSigner()`. */
  signer: Address;
  chain_id: number;
  /** The marketplace contract: the signature's `verifyingContract`, where the root is anchored. */
  contract: Address;
  /** The receipt's EIP-712 struct hash: its leaf in the Merkle tree. */
  leaf: Hex;
  /** null until the run's batch is anchored. */
  anchor: ReceiptAnchor | null;
};

export const RECEIPT_DOMAIN_NAME = "ServiceMarketplace Receipts";
export const RECEIPT_DOMAIN_VERSION = "1";

/** The EIP-712 domain receipts are signed under: the marketplace's chain and address. */
export function receiptDomain(chainId: number, marketplace: Address) {
  return {
    name: RECEIPT_DOMAIN_NAME,
    version: RECEIPT_DOMAIN_VERSION,
    chainId,
    verifyingContract: marketplace,
  } as const;
}

export const RECEIPT_TYPES = {
  Receipt: [
    { name: "runId", type: "string" },
    { name: "listingId", type: "bytes32" },
    { name: "renter", type: "address" },
    { name: "manifestCid", type: "string" },
    { name: "vendor", type: "string" },
    { name: "model", type: "string" },
    { name: "endpointSha256", type: "bytes32" },
    { name: "taskSha256", type: "bytes32" },
    { name: "inputSha256", type: "bytes32" },
    { name: "outputSha256", type: "bytes32" },
    { name: "inputTokens", type: "uint64" },
    { name: "outputTokens", type: "uint64" },
    { name: "startedAtMs", type: "uint64" },
    { name: "finishedAtMs", type: "uint64" },
    { name: "status", type: "string" },
    { name: "costWei", type: "uint256" },
  ],
} as const;

/** The EIP-712 `Receipt` struct of a JSON receipt: null counts and start become 0. */
export function receiptMessage(receipt: Receipt) {
  return {
    runId: receipt.run_id,
    listingId: lowercase(receipt.listing_id),
    renter: lowercase(receipt.renter),
    manifestCid: receipt.manifest_cid,
    vendor: receipt.vendor,
    model: receipt.model,
    endpointSha256: lowercase(receipt.endpoint_sha256),
    taskSha256: lowercase(receipt.task_sha256),
    inputSha256: lowercase(receipt.input_sha256),
    outputSha256: lowercase(receipt.output_sha256),
    inputTokens: BigInt(receipt.input_tokens ?? 0),
    outputTokens: BigInt(receipt.output_tokens ?? 0),
    startedAtMs: BigInt(receipt.started_at_ms ?? 0),
    finishedAtMs: BigInt(receipt.finished_at_ms),
    status: receipt.status,
    costWei: BigInt(receipt.cost_wei),
  };
}

export type ReceiptMessage = ReturnType<typeof receiptMessage>;

// The same bytes in any case; lowercase also spares viem's checksum check of a mixed-case address.
const lowercase = <T extends Hex>(hex: T) => hex.toLowerCase() as T;
