// A thread that validates manifests, and tasks' inputs against their agents' input schemas, one at a
// time for `startManifestValidationThreads`: compiling a creator's schema never blocks the event
// loop of the process that asked.
import { parentPort } from "node:worker_threads";
import { compileInputValidator, type InputValidation } from "./compileInputValidator.ts";
import { validateManifest } from "./validateManifest.ts";

export type ValidationThreadRequest =
  | { manifest: unknown }
  /** `schemaKey` names `schema` for this thread's cache of compiled validators. */
  | { input: unknown; schema: object; schemaKey: string };

export type ValidationThreadMessage =
  /** A schema's compile begins (`input_schema`, `output_schema`), or a value's check (`input`). */
  | { checking: "input_schema" | "output_schema" | "input" }
  | { validation: ReturnType<typeof validateManifest> }
  | { inputValidation: InputValidation };

/** Compiled input validators this thread keeps, least recently used dropped first. */
export const CACHED_INPUT_VALIDATORS = 256;

const port = parentPort;
if (!port) throw new Error("manifestValidationThread.ts runs as a worker thread");
const send = (message: ValidationThreadMessage) => port.postMessage(message);

const inputValidators = new Map<string, ReturnType<typeof compileInputValidator>>();

function inputValidatorFor(schemaKey: string, schema: object) {
  const cached = inputValidators.get(schemaKey);
  // Re-inserted on every use, so the Map's order is least recently used first.
  inputValidators.delete(schemaKey);
  // Compiling has the schema budget, checking the value the (smaller) check budget.
  if (!cached) send({ checking: "input_schema" });
  const validator = cached ?? compileInputValidator(schema);
  inputValidators.set(schemaKey, validator);
  if (inputValidators.size > CACHED_INPUT_VALIDATORS) {
    const [oldest] = inputValidators.keys();
    if (oldest !== undefined) inputValidators.delete(oldest);
  }
  return validator;
}

// Compiles the meta-schema and warms the compilers before the first manifest, whose budget should
// measure its own schemas and not this thread's start.
validateManifest({
  name: "warm-up",
  category: "coding",
  description: "Warms the schema compilers.",
  model: { provider: "openai", model: "warm-up" },
  system_prompt: "Warm up.",
  input_schema: { type: "object", properties: { text: { type: "string", pattern: "^\\w+$" } } },
  output_schema: { type: "string" },
});

port.on("message", (request: ValidationThreadRequest) => {
  if ("manifest" in request) {
    send({
      validation: validateManifest(request.manifest, {
        onSchemaCheck: (field) => send({ checking: field }),
      }),
    });
    return;
  }
  const validator = inputValidatorFor(request.schemaKey, request.schema);
  send({ checking: "input" });
  send({ inputValidation: validator(request.input) });
});
