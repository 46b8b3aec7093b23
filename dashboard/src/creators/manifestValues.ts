import { MANIFEST_FIELDS } from "./manifestFields.ts";

/** Fields of a public manifest the registration derives, which a manifest sent never carries. */
const DERIVED_FIELDS = new Set(["kind"]);

/** A public manifest's fields as the editor shows them: JSON pretty-printed, the rest as text. */
export function editorValuesOf(manifest: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of MANIFEST_FIELDS) {
    const value = manifest[field.name];
    if (value === undefined || value === null) continue;
    values[field.name] = field.kind === "json" ? JSON.stringify(value, null, 2) : String(value);
  }
  return values;
}

/** A public manifest's fields the editor has no input for (`title`, `sample_output`…), kept as they are. */
export function fieldsBeyondTheEditor(manifest: Record<string, unknown>): Record<string, unknown> {
  const edited = new Set(MANIFEST_FIELDS.map((field) => field.name));
  return Object.fromEntries(
    Object.entries(manifest).filter(([name]) => !edited.has(name) && !DERIVED_FIELDS.has(name)),
  );
}
