/** The keywords that refer to a place in a schema by a URI, which may be relative to its root. */
const REFERENCES = new Set(["$ref", "$dynamicRef", "$recursiveRef"]);

/**
 * A creator's schema made fit to sit inside another (a tool's `inputSchema`): its references
 * (`#`, `#/$defs/…`) resolve against the root of the schema they are in, so a schema that has any,
 * or names its dialect (`$schema`, allowed only at a root), gets `id` as its `$id` unless it has
 * one, which makes it the root they resolve against. Any other schema is returned as it is.
 */
export function asSchemaResource(schema: Record<string, unknown>, id: string) {
  if ("$id" in schema || !("$schema" in schema || refersWithin(schema))) return schema;
  return { $id: id, ...schema };
}

/** True when `schema` holds a reference keyword anywhere; iterative, for any depth. */
function refersWithin(schema: unknown): boolean {
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== "object") continue;
    for (const [key, child] of Object.entries(item)) {
      if (REFERENCES.has(key) && typeof child === "string") return true;
      pending.push(child);
    }
  }
  return false;
}
