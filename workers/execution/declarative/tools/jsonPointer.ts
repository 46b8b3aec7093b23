/**
 * The value an RFC 6901 JSON pointer names in `document` (`""` is the whole of it), or undefined
 * when it names nothing. Only a value's own keys are followed, never what it inherits.
 */
export function valueAtPointer(document: unknown, pointer: string): { value: unknown } | undefined {
  if (pointer === "") return { value: document };
  if (!pointer.startsWith("/")) return undefined;
  let value = document;
  for (const escaped of pointer.slice(1).split("/")) {
    const key = escaped.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(value)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= value.length) return undefined;
      value = value[Number(key)];
    } else if (value !== null && typeof value === "object" && Object.hasOwn(value, key)) {
      value = (value as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return { value };
}
