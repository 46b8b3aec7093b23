import {
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  MAX_TOOLS,
} from "../../../lib/manifest/manifestShape.ts";
import { CATEGORIES } from "../../../lib/marketplace/vocabulary.ts";

/** How the editor shows a manifest field: text, a choice, a number, or JSON. */
export type ManifestField = {
  name: string;
  label: string;
  kind: "text" | "textarea" | "select" | "number" | "json";
  options?: readonly string[];
  hint?: string;
};

/** The manifest's fields, in the specification's order. */
export const MANIFEST_FIELDS: ManifestField[] = [
  { name: "name", label: "Name", kind: "text", hint: "kebab-case, e.g. contract-auditor" },
  { name: "category", label: "Category", kind: "select", options: CATEGORIES },
  { name: "description", label: "Description", kind: "textarea" },
  {
    name: "model",
    label: "Model (JSON)",
    kind: "json",
    hint: '{"provider": "self_hosted", "endpoint_url": "https://…"}',
  },
  {
    name: "system_prompt",
    label: "System prompt",
    kind: "textarea",
    hint: "or an entrypoint URL, never both",
  },
  {
    name: "entrypoint_url",
    label: "Entrypoint URL (connected agent)",
    kind: "text",
    hint: "HTTPS",
  },
  {
    name: "tools",
    label: "Tools (JSON, optional)",
    kind: "json",
    hint: `at most ${MAX_TOOLS}, e.g. [{"name": "fetch_url", "scope": "read_only"}]`,
  },
  { name: "input_schema", label: "Input schema (JSON Schema)", kind: "json" },
  { name: "output_schema", label: "Output schema (JSON Schema)", kind: "json" },
  {
    name: "timeout_seconds",
    label: "Timeout (seconds, optional)",
    kind: "number",
    hint: `default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS}`,
  },
];

/** The manifest field a violation's path names: `input_schema.properties.x` → `input_schema`. */
export function topLevelField(path: string): string {
  return path.split(/[.[]/)[0] ?? path;
}
