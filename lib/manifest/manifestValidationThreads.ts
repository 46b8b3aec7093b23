import { Worker } from "node:worker_threads";
import type { InputValidation } from "./compileInputValidator.ts";
import type {
  ValidationThreadMessage,
  ValidationThreadRequest,
  ValueCheck,
} from "./manifestValidationThread.ts";
import type { ManifestValidation } from "./validateManifest.ts";

/** The default for `compileBudgetMs`: far above what a schema within `SCHEMA_LIMITS` needs. */
export const SCHEMA_COMPILE_BUDGET_MS = 2_000;
/** The heap of a validation thread: a schema within `SCHEMA_LIMITS` compiles in a fraction of it. */
export const VALIDATION_THREAD_HEAP_MB = 64;
/** How long checking one value (compiling its schema when not cached, then validating) may take. */
export const VALUE_CHECK_BUDGET_MS = 5_000;

export type ManifestValidationThreadsOptions = {
  /** Validations at once; more wait for a thread. */
  threads: number;
  /** How long one schema may take to check and compile before its thread is terminated. */
  compileBudgetMs?: number;
  heapMb?: number;
  /** How long checking one value against a schema may take before its thread is terminated. */
  checkBudgetMs?: number;
};

export type ManifestValidationThreads = {
  /** `validateManifest(input)`, run on a thread; a schema over its budget is a violation. */
  validate: (input: unknown) => Promise<ManifestValidation>;
  /**
   * A value (a task's input, a run's output) against a creator's schema, on a thread that keeps the
   * schema compiled under `cacheKey`. Naming the path of the first mismatch, like
   * `compileInputValidator`; a value that cannot be checked in time or memory is a mismatch.
   */
  check: (request: ValueCheck) => Promise<InputValidation>;
  close: () => Promise<void>;
};

type SchemaField = Extract<ValidationThreadMessage, { checking: unknown }>["checking"];

/** How a request to a thread ends: answered (thread kept), abandoned or failed (thread replaced). */
type Turn<T> = {
  answer: (value: T) => void;
  abandon: (value: T) => void;
  fail: (error: Error) => void;
  /** (Re)starts the request's time budget: past it, the thread is terminated and `answer()` given. */
  budget: (ms: number, answer: () => T) => void;
};

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
  checkBudgetMs = VALUE_CHECK_BUDGET_MS,
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

  /**
   * Posts `request` to a thread and answers from what it says back. `handle` reads each message
   * and may settle; a thread that errs or exits settles with `onError`, a failed thread is replaced.
   */
  async function ask<T>(
    request: ValidationThreadRequest,
    handle: (message: ValidationThreadMessage, turn: Turn<T>) => void,
    onError: (error: Error & { code?: string }, turn: Turn<T>) => void,
  ): Promise<T> {
    const thread = await acquire();
    thread.ref();
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (keepThread: boolean, outcome: () => void) => {
        clearTimeout(timer);
        thread.off("message", onMessage).off("error", onThreadError).off("exit", onExit);
        if (keepThread) release(thread);
        else discard(thread);
        outcome();
      };
      const turn: Turn<T> = {
        answer: (value) => settle(true, () => resolve(value)),
        abandon: (value) => settle(false, () => resolve(value)),
        fail: (error) => settle(false, () => reject(error)),
        budget: (ms, answer) => {
          clearTimeout(timer);
          timer = setTimeout(() => settle(false, () => resolve(answer())), ms);
        },
      };
      const onMessage = (message: ValidationThreadMessage) => handle(message, turn);
      const onThreadError = (error: Error & { code?: string }) => onError(error, turn);
      const onExit = (code: number) => {
        turn.fail(new Error(`a manifest validation thread exited with code ${code}`));
      };
      thread.on("message", onMessage).on("error", onThreadError).on("exit", onExit);
      thread.postMessage(request);
    });
  }

  function validate(manifest: unknown): Promise<ManifestValidation> {
    let field: SchemaField | undefined;
    return ask<ManifestValidation>(
      { manifest },
      (message, turn) => {
        if ("validation" in message) return turn.answer(message.validation);
        if (!("checking" in message)) return;
        // The budget is per schema, from the moment its check begins on the thread.
        field = message.checking;
        const overBudget = overBudgetViolation(
          field,
          "compile_timeout",
          `did not compile within ${compileBudgetMs} ms`,
        );
        turn.budget(compileBudgetMs, () => overBudget);
      },
      (error, turn) => {
        if (field && error.code === "ERR_WORKER_OUT_OF_MEMORY") {
          return turn.abandon(
            overBudgetViolation(field, "compile_memory", `needs more than ${heapMb} MB to compile`),
          );
        }
        turn.fail(error);
      },
    );
  }

  function check(request: ValueCheck): Promise<InputValidation> {
    const unchecked = (message: string): InputValidation => ({
      ok: false,
      mismatch: { path: request.root, message },
    });
    return ask<InputValidation>(
      { check: request },
      (message, turn) => {
        if ("checked" in message) return turn.answer(message.checked);
        // From the moment the check begins on the thread, as for a manifest's schemas.
        if ("checking" in message) {
          turn.budget(checkBudgetMs, () =>
            unchecked(
              `could not be checked against ${request.root}_schema within ${checkBudgetMs} ms`,
            ),
          );
        }
      },
      // A schema that no longer compiles, a value too large for the thread's heap.
      (_error, turn) =>
        turn.abandon(unchecked(`could not be checked against ${request.root}_schema`)),
    );
  }

  return {
    validate,
    check,
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
