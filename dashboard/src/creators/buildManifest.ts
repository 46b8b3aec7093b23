import { MANIFEST_FIELDS } from "./manifestFields.ts";

/** The manifest typed into the editor, or which fields are not JSON; empty fields are left out. */
export function buildManifest(
  values: Record<string, string>,
): { manifest: Record<string, unknown> } | { errors: Record<string, string> } {
  const manifest: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of MANIFEST_FIELDS) {
    const text = (values[field.name] ?? "").trim();
    if (!text) continue;
    if (field.kind === "number") manifest[field.name] = Number(text);
    else if (field.kind !== "json") manifest[field.name] = text;
    else {
      try {
        manifest[field.name] = JSON.parse(text);
      } catch {
        errors[field.name] = "This is not valid JSON.";
      }
    }
  }
  return Object.keys(errors).length > 0 ? { errors } : { manifest };
}
