/** Wei amounts the API sends as JSON integers, which `JSON.parse` would round past 2^53. */
const WEI_FIELDS = /"(cost_wei)":\s*(-?\d+)/g;

/**
 * Parses an API answer, reading wei amounts as bigint. The pattern can only match a real key: inside
 * a JSON string, the quotes around a key-like text are escaped.
 */
export function parseExactJson<T>(text: string): T {
  const quoted = text.replace(WEI_FIELDS, '"$1":"$2"');
  return JSON.parse(quoted, (key, value) =>
    key === "cost_wei" && typeof value === "string" ? BigInt(value) : value,
  ) as T;
}
