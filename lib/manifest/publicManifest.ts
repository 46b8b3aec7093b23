import type { Manifest } from "./manifestShape.ts";

/**
 * What renters and the world may see of an agent: everything but its logic and where it runs
 * (prompt, webhook and model endpoints).
 */
export function publicManifest(manifest: Manifest) {
  return {
    name: manifest.name,
    title: manifest.title,
    category: manifest.category,
    description: manifest.description,
    kind: manifest.entrypoint_url ? "connected" : "declarative",
    model: { provider: manifest.model.provider, model: manifest.model.model },
    tools: manifest.tools ?? [],
    tool_domains: manifest.tool_domains,
    input_schema: manifest.input_schema,
    output_schema: manifest.output_schema,
    timeout_seconds: manifest.timeout_seconds,
    sample_output: manifest.sample_output,
    creator_display_name: manifest.creator_display_name,
  };
}

/** The private part, sealed at rest and read only to run the agent. */
export function privateManifest(manifest: Manifest) {
  return {
    system_prompt: manifest.system_prompt,
    entrypoint_url: manifest.entrypoint_url,
    model_endpoint_url: manifest.model.endpoint_url,
  };
}

/** JSON with object keys sorted at every depth: the same manifest always has the same bytes and CID. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
