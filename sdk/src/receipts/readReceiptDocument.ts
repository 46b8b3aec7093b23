import type { Address, Hex, Receipt, ReceiptAnchor } from "./receiptTypes.ts";

/** The parts of a receipt document that are well formed (each absent when not), and what is not. */
export type ReadReceiptDocument = {
  receipt?: Receipt;
  signature?: Hex;
  chainId?: number;
  contract?: Address;
  leaf?: Hex;
  /** null: not anchored yet. */
  anchor?: ReceiptAnchor | null;
  problems: string[];
};

type Check = [test: (value: unknown) => boolean, expected: string];

const isString = (value: unknown) => typeof value === "string";
const isBytes32 = (value: unknown) =>
  typeof value === "string" && /^0x[0-9a-fA-F]{64}$/.test(value);
const isAddress = (value: unknown) =>
  typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value);
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
const orNull = (test: (value: unknown) => boolean) => (value: unknown) =>
  value === null || test(value);
const isWei = (value: unknown) =>
  typeof value === "string" && /^(0|[1-9][0-9]*)$/.test(value) && BigInt(value) < 2n ** 256n;

const BYTES32: Check = [isBytes32, "0x and 32 bytes of hex"];
const TEXT: Check = [isString, "a string"];

const RECEIPT_FIELDS: Record<keyof Receipt, Check> = {
  run_id: TEXT,
  listing_id: BYTES32,
  renter: [isAddress, "a 0x address"],
  manifest_cid: TEXT,
  vendor: TEXT,
  model: TEXT,
  endpoint_sha256: BYTES32,
  task_sha256: BYTES32,
  input_sha256: BYTES32,
  output_sha256: BYTES32,
  input_tokens: [orNull(isCount), "a non-negative integer or null"],
  output_tokens: [orNull(isCount), "a non-negative integer or null"],
  started_at_ms: [orNull(isCount), "unix milliseconds or null"],
  finished_at_ms: [isCount, "unix milliseconds"],
  status: [(value) => value === "completed" || value === "failed", '"completed" or "failed"'],
  cost_wei: [isWei, "a decimal string of wei"],
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads a receipt document (docs/receipts.md) of unknown shape, naming every part that is wrong. */
export function readReceiptDocument(value: unknown): ReadReceiptDocument {
  if (!isRecord(value)) return { problems: ["the document is not a JSON object"] };
  const problems: string[] = [];
  const field = <T>(name: string, [test, expected]: Check): T | undefined => {
    if (test(value[name])) return value[name] as T;
    problems.push(`${name} is not ${expected}`);
    return undefined;
  };
  return {
    receipt: readReceipt(value.receipt, problems),
    signature: field<Hex>("signature", [
      (text) => typeof text === "string" && /^0x([0-9a-fA-F]{2})+$/.test(text),
      "a 0x hex signature",
    ]),
    chainId: field<number>("chain_id", [
      (id) => Number.isSafeInteger(id) && (id as number) > 0,
      "a chain id",
    ]),
    contract: field<Address>("contract", [isAddress, "a 0x address"]),
    leaf: field<Hex>("leaf", BYTES32),
    anchor: readAnchor(value.anchor, problems),
    problems,
  };
}

function readReceipt(value: unknown, problems: string[]): Receipt | undefined {
  if (!isRecord(value)) {
    problems.push("receipt is not a JSON object");
    return undefined;
  }
  const before = problems.length;
  for (const [name, [test, expected]] of Object.entries(RECEIPT_FIELDS)) {
    if (!test(value[name])) problems.push(`receipt.${name} is not ${expected}`);
  }
  for (const name of Object.keys(value)) {
    if (!Object.hasOwn(RECEIPT_FIELDS, name))
      problems.push(`receipt.${name} is no receipt field: it is not signed`);
  }
  return problems.length === before ? (value as Receipt) : undefined;
}

function readAnchor(value: unknown, problems: string[]): ReceiptAnchor | null | undefined {
  if (value === null) return null;
  const wellFormed =
    isRecord(value) &&
    isBytes32(value.root) &&
    Array.isArray(value.proof) &&
    value.proof.every(isBytes32) &&
    isBytes32(value.transaction) &&
    Number.isSafeInteger(value.block) &&
    (value.block as number) > 0;
  if (wellFormed) return value as ReceiptAnchor;
  problems.push("anchor is neither null nor { root, proof, transaction, block }");
  return undefined;
}
