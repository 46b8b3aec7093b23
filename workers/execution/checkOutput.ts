import type { SealedAgent } from "../../lib/agents/openAgentSecret.ts";
import type { ManifestValidationThreads } from "../../lib/manifest/manifestValidationThreads.ts";
import { outputMismatch } from "../../lib/runLedger/runFailures.ts";

/** Why the output of a completed run of `agent` cannot be kept, or undefined when it can. */
export type OutputCheck = (
  agent: Pick<SealedAgent, "publicManifest" | "version"> | undefined,
  output: unknown,
) => Promise<string | undefined>;

const NUL_IN_OUTPUT = "the output contains the NUL character";

/**
 * Checks outputs against their agent version's `output_schema` with the engine registration
 * compiled it with, on the validation threads (never on this event loop: in the embedded
 * composition it is the API's), each version's schema kept compiled there. `{"type": "string"}`
 * means text and needs no thread. Postgres stores no NUL character, so an output holding one is
 * refused too.
 */
export function createOutputCheck({
  threads,
}: {
  threads: Pick<ManifestValidationThreads, "validateInput">;
}): OutputCheck {
  return async (agent, output) => {
    if (holdsNul(output)) return NUL_IN_OUTPUT;
    const schema = (agent?.publicManifest as { output_schema?: unknown } | null | undefined)
      ?.output_schema;
    // Every registered agent has one; a listing stored without (by hand) promises nothing.
    if (!schema || typeof schema !== "object") return undefined;
    if (isText(schema)) {
      return typeof output === "string" ? undefined : outputMismatch("output", "must be string");
    }
    // Keyed apart from the listing's input schema, should both ever share a thread.
    const checked = await threads.validateInput(`output:${agent?.version}`, schema, output);
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

/**
 * Whether a string of the output (a value or a key) holds the NUL character itself, not its JSON
 * escape. Walked with a stack of its own: an output may nest deeper than the call stack.
 */
function holdsNul(output: unknown): boolean {
  const pending = [output];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") {
      if (value.includes("\u0000")) return true;
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes("\u0000")) return true;
        pending.push(item);
      }
    }
  }
  return false;
}
