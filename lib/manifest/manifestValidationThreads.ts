import { Worker } from "node:worker_threads";
import type { ValidationThreadMessage } from "./manifestValidationThread.ts";
import type { ManifestValidation } from "./validateManifest.ts";

/** The default for `compileBudgetMs`: far above what a schema within `SCHEMA_LIMITS` needs. */
export const SCHEMA_COMPILE_BUDGET_MS = 2_000;
/** The heap of a validation thread: a schema within `SCHEMA_LIMITS` compiles in a fraction of it. */
export const VALIDATION_THREAD_HEAP_MB = 64;

export type ManifestValidationThreadsOptions = {
  /** Validations at once; more wait for a thread. */
  threads: number;
  /** How long one schema may take to check and compile before its thread is terminated. */
  compileBudgetMs?: number;
  heapMb?: number;
};

export type ManifestValidationThreads = {
  /** `validateManifest(input)`, run on a thread; a schema over its budget is a violation. */
  validate: (input: unknown) => Promise<ManifestValidation>;
  close: () => Promise<void>;
};

type SchemaField = Extract<ValidationThreadMessage, { checking: unknown }>["checking"];

const THREAD_ENTRY = new URL("./manifestValidationThread.ts", import.meta.url);

/**
 * Validates manifests on worker threads, so that compiling a hostile schema never stalls the event
 * loop of the caller (in the embedded composition, the API's). Threads start on first use and are
 * kept; one whose schema runs out of time or memory is terminated and its schema rejected.
 */
export function startManifestValidationThreads({
  threads,
  compileBudgetMs = SCHEMA_COMPILE_BUDGET_MS,
  heapMb = VALIDATION_THREAD_HEAP_MB,
}: ManifestValidationThreadsOptions): ManifestValidationThreads {
  const alive = new Set<Worker>();
  const idle: Worker[] = [];
  const waiting: ((thread: Worker) => void)[] = [];

  function spawn(): Worker {
    const thread = new Worker(THREAD_ENTRY, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    alive.add(thread);
    // Between validations too: a thread that fails is dropped, never an uncaught error.
    thread.on("error", () => {});
    thread.once("exit", () => {
      alive.delete(thread);
      const index = idle.indexOf(thread);
      if (index >= 0) idle.splice(index, 1);
    });
    return thread;
  }

  function acquire(): Promise<Worker> {
    const thread = idle.pop() ?? (alive.size < threads ? spawn() : undefined);
    return thread ? Promise.resolve(thread) : new Promise((resolve) => waiting.push(resolve));
  }

  function release(thread: Worker) {
    const next = waiting.shift();
    if (next) return next(thread);
    // An idle thread does not keep the process alive.
    thread.unref();
    idle.push(thread);
  }

  function discard(thread: Worker) {
    alive.delete(thread);
    void thread.terminate();
    waiting.shift()?.(spawn());
  }

  async function validate(input: unknown): Promise<ManifestValidation> {
    const thread = await acquire();
    thread.ref();
    return new Promise((resolve, reject) => {
      let field: SchemaField | undefined;
      let timer: NodeJS.Timeout | undefined;
      const settle = (keepThread: boolean, outcome: () => void) => {
        clearTimeout(timer);
        thread.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (keepThread) release(thread);
        else discard(thread);
        outcome();
      };
      const onMessage = (message: ValidationThreadMessage) => {
        if ("validation" in message) return settle(true, () => resolve(message.validation));
        // The budget is per schema, from the moment its check begins on the thread.
        field = message.checking;
        clearTimeout(timer);
        const overBudget = overBudgetViolation(
          field,
          "compile_timeout",
          `did not compile within ${compileBudgetMs} ms`,
        );
        timer = setTimeout(() => settle(false, () => resolve(overBudget)), compileBudgetMs);
      };
      const onError = (error: Error & { code?: string }) => {
        if (field && error.code === "ERR_WORKER_OUT_OF_MEMORY") {
          const overMemory = overBudgetViolation(
            field,
            "compile_memory",
            `needs more than ${heapMb} MB to compile`,
          );
          return settle(false, () => resolve(overMemory));
        }
        settle(false, () => reject(error));
      };
      const onExit = (code: number) => {
        settle(false, () =>
          reject(new Error(`a manifest validation thread exited with code ${code}`)),
        );
      };
      thread.on("message", onMessage).on("error", onError).on("exit", onExit);
      thread.postMessage(input);
    });
  }

  return {
    validate,
    close: async () => {
      await Promise.all([...alive].map((thread) => thread.terminate()));
    },
  };
}

function overBudgetViolation(
  field: SchemaField,
  rule: string,
  message: string,
): ManifestValidation {
  return { ok: false, violations: [{ field, rule, message }] };
}
