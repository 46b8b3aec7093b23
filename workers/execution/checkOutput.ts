import { eq, sql } from "drizzle-orm";
import { agents } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { ManifestValidationThreads } from "../../lib/manifest/manifestValidationThreads.ts";
import { outputMismatch } from "../../lib/runs/runFailures.ts";

/** Why a completed run's output cannot be kept, or undefined when it can. */
export type OutputCheck = (
  onChainListingId: string,
  output: unknown,
) => Promise<string | undefined>;

const NUL_IN_OUTPUT = "the output contains the NUL character";

/**
 * Checks outputs against their agent's `output_schema` with the engine registration compiled it
 * with, on the validation threads (never on this event loop: in the embedded composition it is the
 * API's), each listing's schema kept compiled there. `{"type": "string"}` means text and needs no
 * thread. Postgres stores no NUL character, so an output holding one is refused too.
 */
export function createOutputCheck({
  db,
  threads,
}: {
  db: Database;
  threads: Pick<ManifestValidationThreads, "validateInput">;
}): OutputCheck {
  return async (onChainListingId, output) => {
    if (JSON.stringify(output ?? null).includes("\\u0000")) return NUL_IN_OUTPUT;
    const [agent] = await db
      .select({ schema: sql<unknown>`${agents.publicManifest} -> 'output_schema'` })
      .from(agents)
      .where(eq(agents.onChainListingId, onChainListingId.toLowerCase()));
    const schema = agent?.schema;
    // Every registered agent has one; a listing stored without (by hand) promises nothing.
    if (!schema || typeof schema !== "object") return undefined;
    if (isText(schema)) {
      return typeof output === "string" ? undefined : outputMismatch("output", "must be string");
    }
    // Keyed apart from the listing's input schema, should both ever share a thread.
    const checked = await threads.validateInput(`output:${onChainListingId}`, schema, output);
    if (checked.ok) return undefined;
    const { path, message } = checked.mismatch;
    return outputMismatch(outputPath(path), message.replace("input_schema", "output_schema"));
  };
}

/** The threads name paths from `input` (`input.findings[1].line`); here the value is the output. */
const outputPath = (inputPath: string) => `output${inputPath.slice("input".length)}`;

function isText(schema: object): boolean {
  const keys = Object.keys(schema);
  return keys.length === 1 && (schema as { type?: unknown }).type === "string";
}
