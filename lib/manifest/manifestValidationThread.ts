// A thread that validates manifests one at a time for `startManifestValidationThreads`: compiling a
// creator's schemas never blocks the event loop of the process that asked.
import { parentPort } from "node:worker_threads";
import { validateManifest } from "./validateManifest.ts";

export type ValidationThreadMessage =
  | { checking: "input_schema" | "output_schema" }
  | { validation: ReturnType<typeof validateManifest> };

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

port.on("message", (input: unknown) => {
  send({
    validation: validateManifest(input, { onSchemaCheck: (field) => send({ checking: field }) }),
  });
});
