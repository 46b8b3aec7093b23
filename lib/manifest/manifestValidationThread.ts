// A thread that validates manifests, and checks values against creator schemas, one at a time for
// `startManifestValidationThreads`: compiling a creator's schemas never blocks the event loop of the
// process that asked.
import { parentPort } from "node:worker_threads";
import { compileInputValidator, type InputValidation } from "./compileInputValidator.ts";
import { validateManifest } from "./validateManifest.ts";

/** A value to check against a schema; `cacheKey` names the schema (a listing's) for reuse. */
export type ValueCheck = {
  cacheKey: string;
  schema: object;
  value: unknown;
  root: "input" | "output";
};

export type ValidationThreadRequest = { manifest: unknown } | { check: ValueCheck };

export type ValidationThreadMessage =
  | { checking: "input_schema" | "output_schema" }
  | { validation: ReturnType<typeof validateManifest> }
  | { checked: InputValidation };

const port = parentPort;
if (!port) throw new Error("manifestValidationThread.ts runs as a worker thread");
const send = (message: ValidationThreadMessage) => port.postMessage(message);

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

/** Compiled schemas by cache key, least recently used first; a key whose schema changed compiles anew. */
const compiled = new Map<
  string,
  { schemaText: string; check: (value: unknown) => InputValidation }
>();
const MAX_COMPILED = 256;

function checkValue({ cacheKey, schema, value, root }: ValueCheck): InputValidation {
  const key = `${root}:${cacheKey}`;
  const schemaText = JSON.stringify(schema);
  let entry = compiled.get(key);
  compiled.delete(key);
  if (entry?.schemaText !== schemaText) {
    entry = { schemaText, check: compileInputValidator(schema, root) };
  }
  compiled.set(key, entry);
  for (const oldest of compiled.keys()) {
    if (compiled.size <= MAX_COMPILED) break;
    compiled.delete(oldest);
  }
  return entry.check(value);
}

port.on("message", (request: ValidationThreadRequest) => {
  if ("check" in request) {
    send({ checking: `${request.check.root}_schema` });
    send({ checked: checkValue(request.check) });
    return;
  }
  send({
    validation: validateManifest(request.manifest, {
      onSchemaCheck: (field) => send({ checking: field }),
    }),
  });
});
