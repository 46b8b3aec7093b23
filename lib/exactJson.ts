/**
 * A JSON object whose top-level bigints are written as exact integer literals: wei amounts pass 2^53
 * at about 0.009 ETH, past which a JSON number made from a double would be off. Every other value is
 * `JSON.stringify`'s.
 */
export function exactJson(fields: Record<string, unknown>): string {
  const members = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const text = typeof value === "bigint" ? value.toString() : JSON.stringify(value);
      return `${JSON.stringify(key)}:${text}`;
    });
  return `{${members.join(",")}}`;
}
