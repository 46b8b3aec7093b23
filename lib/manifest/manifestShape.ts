// The manifest's shape and limits: registration checks them (validateManifest.ts), the API describes
// them (api/openapi/manifestSchema.ts) and the dashboard's editor shows them, all from here.
import type { Category } from "../marketplace/vocabulary.ts";

export const MODEL_PROVIDERS = ["openai", "anthropic", "self_hosted"] as const;
export const TOOL_SCOPES = ["read_only", "input_only", "repo_scoped"] as const;

export type ModelProvider = (typeof MODEL_PROVIDERS)[number];
export type ToolScope = (typeof TOOL_SCOPES)[number];
export type JsonObject = { [key: string]: unknown };

export type Manifest = {
  name: string;
  category: Category;
  description: string;
  model: { provider: ModelProvider; model?: string; endpoint_url?: string };
  system_prompt?: string;
  entrypoint_url?: string;
  tools?: { name: string; scope: ToolScope }[];
  /** Hosts (and their subdomains) whose URLs `read_only` tools may give query strings of their own. */
  tool_domains?: string[];
  input_schema: JsonObject;
  output_schema: JsonObject;
  timeout_seconds: number;
  title?: string;
  sample_output?: string[];
  creator_display_name?: string;
};

/** A manifest's `name`: part of the agent id. */
export const KEBAB_CASE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** The longest run a manifest may declare, in seconds. */
export const MAX_TIMEOUT_SECONDS = 300;
export const MAX_TOOLS = 10;
export const MAX_TOOL_DOMAINS = 20;
export const MAX_SAMPLE_OUTPUTS = 3;
export const MAX_TITLE_LENGTH = 120;
export const MAX_URL_LENGTH = 2048;
export const MAX_SYSTEM_PROMPT_LENGTH = 100_000;
