import { sha256, stringToBytes } from "viem";
import type { Hex } from "./receiptTypes.ts";

/**
 * JSON with every object's keys sorted by UTF-16 code units, no whitespace, each value written as
 * `JSON.stringify` writes it: RFC 8785 (JCS) for any JSON a client sends. Absent (`undefined`) is
 * `null`.
 */
export function canonicalJson(value: unknown): string {
  return serialized(value, "") ?? "null";
}

/** SHA-256 of the UTF-8 bytes of `canonicalJson(value)`: how a receipt names a task, input or output. */
export function sha256Json(value: unknown): Hex {
  return sha256(stringToBytes(canonicalJson(value)));
}

/** A value's JSON, or undefined where `JSON.stringify` leaves it out (undefined, functions, symbols). */
function serialized(value: unknown, key: string): string | undefined {
  const json = withToJson(value, key);
  if (json === null || typeof json !== "object") return JSON.stringify(json);
  if (Array.isArray(json)) {
    return `[${json.map((item, index) => serialized(item, String(index)) ?? "null").join(",")}]`;
  }
  // An object's own key order puts integer-like keys first: the sort must be on the keys themselves.
  const members: string[] = [];
  for (const name of Object.keys(json).sort()) {
    const member = serialized((json as Record<string, unknown>)[name], name);
    if (member !== undefined) members.push(`${JSON.stringify(name)}:${member}`);
  }
  return `{${members.join(",")}}`;
}

function withToJson(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === "function" ? toJSON.call(value, key) : value;
}
