// The manifest's shape for the API description, from its one home (lib/manifest/manifestShape.ts).
// Registration checks every rule itself (lib/manifest/validateManifest.ts) and reports each
// violation in the job.
import { z } from "zod/v4";
import {
  DEFAULT_TIMEOUT_SECONDS,
  KEBAB_CASE,
  MAX_SAMPLE_OUTPUTS,
  MAX_SYSTEM_PROMPT_LENGTH,
  MAX_TIMEOUT_SECONDS,
  MAX_TITLE_LENGTH,
  MAX_TOOL_DOMAINS,
  MAX_TOOLS,
  MAX_URL_LENGTH,
  MODEL_PROVIDERS,
  TOOL_SCOPES,
} from "../../lib/manifest/manifestShape.ts";
import { TOOL_NAMES } from "../../lib/manifest/toolCatalog.ts";
import { CATEGORIES } from "../../lib/marketplace/vocabulary.ts";
import { MAX_BODY_BYTES } from "../limits.ts";

const jsonSchema = z.record(z.string(), z.unknown()).describe("A JSON Schema object");

export const manifest = z
  .object({
    name: z.string().regex(KEBAB_CASE).describe("Kebab-case; part of the agent id"),
    category: z.enum(CATEGORIES),
    description: z.string(),
    model: z.object({
      provider: z.enum(MODEL_PROVIDERS),
      model: z.string().optional().describe("Required for the hosted vendors"),
      endpoint_url: z
        .string()
        .max(MAX_URL_LENGTH)
        .optional()
        .describe("Required for self_hosted; HTTPS"),
    }),
    system_prompt: z
      .string()
      .max(MAX_SYSTEM_PROMPT_LENGTH)
      .optional()
      .describe("Declarative agents; never returned or logged"),
    entrypoint_url: z
      .string()
      .max(MAX_URL_LENGTH)
      .optional()
      .describe("Connected agents: their HTTPS webhook"),
    tools: z
      .array(z.object({ name: z.enum(TOOL_NAMES), scope: z.enum(TOOL_SCOPES) }))
      .max(MAX_TOOLS)
      .optional(),
    tool_domains: z
      .array(z.string())
      .max(MAX_TOOL_DOMAINS)
      .optional()
      .describe(
        "Domains (and their subdomains) on which read_only tools may send query strings the model " +
          "wrote; elsewhere only query strings copied from the task, the input or a page read",
      ),
    input_schema: jsonSchema,
    output_schema: jsonSchema,
    timeout_seconds: z.int().min(1).max(MAX_TIMEOUT_SECONDS).default(DEFAULT_TIMEOUT_SECONDS),
    title: z.string().max(MAX_TITLE_LENGTH).optional(),
    sample_output: z.array(z.string()).max(MAX_SAMPLE_OUTPUTS).optional(),
    creator_display_name: z.string().optional(),
    vendor_credentials: z
      .record(z.string(), z.string())
      .optional()
      .describe("Hosted vendors: the creator's credentials, sealed to the listing, never returned"),
  })
  .describe(
    `An agent manifest (at most ${MAX_BODY_BYTES / 1024} KB). Declares system_prompt or ` +
      "entrypoint_url, never both. Rejections are reported through the job.",
  )
  .meta({ id: "Manifest" });

/** What `GET /v1/manifests/{cid}` serves: the manifest without the agent's logic or endpoints. */
export const publicManifest = manifest
  .omit({ system_prompt: true, entrypoint_url: true, vendor_credentials: true })
  .extend({
    kind: z.enum(["connected", "declarative"]),
    model: z.object({ provider: z.enum(MODEL_PROVIDERS), model: z.string().optional() }),
    tools: z.array(z.object({ name: z.enum(TOOL_NAMES), scope: z.enum(TOOL_SCOPES) })),
    timeout_seconds: z.int().min(1).max(MAX_TIMEOUT_SECONDS),
  })
  .describe("An agent's public manifest: its exact registered bytes, which its content id names")
  .meta({ id: "PublicManifest" });
