import { Worker } from "node:worker_threads";
import type { InputValidation } from "./compileInputValidator.ts";
import { createFairQueue } from "./fairQueue.ts";
import type {
  ValidationThreadMessage,
  ValidationThreadRequest,
} from "./manifestValidationThread.ts";
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
  /** How long one value may take to check against a compiled schema (default: `compileBudgetMs`). */
  checkBudgetMs?: number;
  heapMb?: number;
  /**
   * Validations waiting for a thread are queued per key and served in turn between keys: past
   * `waitingPerKey` for one key, or past `waitMs` of waiting, a validation is refused with a
   * `QueueRefusal` (default: neither bound). One key's validations hold at most `busyPerKey`
   * threads at once, its others wait even if a thread is idle (default: every thread).
   */
  waitingPerKey?: number;
  waitMs?: number;
  busyPerKey?: number;
  /** Starts every thread now rather than on first use (default false). */
  eager?: boolean;
};

export type ManifestValidationThreads = {
  /** `validateManifest(input)`, run on a thread; a schema over its budget is a violation. */
  validate: (input: unknown) => Promise<ManifestValidation>;
  /**
   * A task's `input` checked against an agent's `input_schema` (as registered), run on a thread
   * that keeps the compiled check under `schemaKey`: the same key must always name the same schema.
   * A check over the budget is a mismatch. It waits for a thread in the queue of `queueKey` (the
   * listing's), `schemaKey` by default.
   */
  validateInput: (
    schemaKey: string,
    schema: object,
    input: unknown,
    queueKey?: string,
  ) => Promise<InputValidation>;
  /** Validations waiting for a thread, across keys. */
  waiting: () => number;
  close: () => Promise<void>;
};

type CheckedField = Extract<ValidationThreadMessage, { checking: unknown }>["checking"];
type OverBudgetRule = "compile_timeout" | "compile_memory";
/** Manifests wait in one queue of their own. */
const MANIFEST_QUEUE = "manifest";

const THREAD_ENTRY = new URL("./manifestValidationThread.ts", import.meta.url);

/**
 * Validates manifests, and tasks' inputs against their agents' input schemas, on worker threads, so
 * that compiling a hostile schema never stalls the event loop of the caller (the API's, in the
 * embedded composition and for every execution). Threads start on first use (or at once, `eager`)
 * and are kept; one whose schema runs out of time or memory is terminated and its schema rejected.
 */
export function startManifestValidationThreads({
  threads,
  compileBudgetMs = SCHEMA_COMPILE_BUDGET_MS,
  checkBudgetMs = compileBudgetMs,
  heapMb = VALIDATION_THREAD_HEAP_MB,
  waitingPerKey,
  waitMs,
  busyPerKey = threads,
  eager = false,
}: ManifestValidationThreadsOptions): ManifestValidationThreads {
  const alive = new Set<Worker>();
  const idle: Worker[] = [];
  const waiting = createFairQueue<Worker>({ waitingPerKey, waitMs });
  /** Threads each queue key's validations hold. */
  const busy = new Map<string, number>();
  const budgetOf = (field: CheckedField) => (field === "input" ? checkBudgetMs : compileBudgetMs);
  const mayStart = (queueKey: string) => (busy.get(queueKey) ?? 0) < busyPerKey;
  const count = (queueKey: string, change: 1 | -1) => {
    const threadsHeld = (busy.get(queueKey) ?? 0) + change;
    if (threadsHeld > 0) busy.set(queueKey, threadsHeld);
    else busy.delete(queueKey);
  };

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

  if (eager) {
    for (let started = 0; started < threads; started++) {
      const thread = spawn();
      thread.unref();
      idle.push(thread);
    }
  }

  function acquire(queueKey: string): Promise<Worker> {
    const thread = mayStart(queueKey)
      ? (idle.pop() ?? (alive.size < threads ? spawn() : undefined))
      : undefined;
    if (!thread) return waiting.wait(queueKey);
    count(queueKey, 1);
    return Promise.resolve(thread);
  }

  /** Gives a thread (`threadFor()`) to the next waiter whose key may start; false when none. */
  function handOn(threadFor: () => Worker): boolean {
    const next = waiting.next(mayStart);
    if (!next) return false;
    count(next.key, 1);
    next.give(threadFor());
    return true;
  }

  function release(thread: Worker, queueKey: string) {
    count(queueKey, -1);
    if (handOn(() => thread)) return;
    // An idle thread does not keep the process alive.
    thread.unref();
    idle.push(thread);
  }

  function discard(thread: Worker, queueKey: string) {
    count(queueKey, -1);
    alive.delete(thread);
    void thread.terminate();
    handOn(() => idle.pop() ?? spawn());
  }

  /**
   * Posts `request` to a thread and settles with what it answers. The budget runs from each
   * `checking` message (a schema's check beginning on the thread), not from the post: a new thread
   * warms up first; a value's check (`input`) has `checkBudgetMs`, a schema's `compileBudgetMs`.
   * `overBudget` is the answer when a check runs out of time or memory.
   */
  async function ask<T>(
    queueKey: string,
    request: ValidationThreadRequest,
    answerOf: (message: ValidationThreadMessage) => T | undefined,
    overBudget: (field: CheckedField, rule: OverBudgetRule) => T,
  ): Promise<T> {
    const thread = await acquire(queueKey);
    thread.ref();
    return new Promise((resolve, reject) => {
      let field: CheckedField | undefined;
      let timer: NodeJS.Timeout | undefined;
      const settle = (keepThread: boolean, outcome: () => void) => {
        clearTimeout(timer);
        thread.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (keepThread) release(thread, queueKey);
        else discard(thread, queueKey);
        outcome();
      };
      const onMessage = (message: ValidationThreadMessage) => {
        if (!("checking" in message)) {
          const answer = answerOf(message);
          if (answer !== undefined) return settle(true, () => resolve(answer));
          return settle(false, () => reject(new Error("a validation thread answered off-topic")));
        }
        // The budget is per schema or value, from the moment its check begins on the thread.
        const checking = message.checking;
        field = checking;
        clearTimeout(timer);
        timer = setTimeout(
          () => settle(false, () => resolve(overBudget(checking, "compile_timeout"))),
          budgetOf(checking),
        );
      };
      const onError = (error: Error & { code?: string }) => {
        const checking = field;
        if (checking && error.code === "ERR_WORKER_OUT_OF_MEMORY") {
          return settle(false, () => resolve(overBudget(checking, "compile_memory")));
        }
        settle(false, () => reject(error));
      };
      const onExit = (code: number) => {
        settle(false, () =>
          reject(new Error(`a manifest validation thread exited with code ${code}`)),
        );
      };
      thread.on("message", onMessage).on("error", onError).on("exit", onExit);
      thread.postMessage(request);
    });
  }

  function validate(manifest: unknown): Promise<ManifestValidation> {
    return ask(
      MANIFEST_QUEUE,
      { manifest },
      (message) => ("validation" in message ? message.validation : undefined),
      (field, rule) => ({
        ok: false,
        violations: [
          {
            field: field === "input" ? "input_schema" : field,
            rule,
            message:
              rule === "compile_timeout"
                ? `did not compile within ${budgetOf(field)} ms`
                : `needs more than ${heapMb} MB to compile`,
          },
        ],
      }),
    );
  }

  function validateInput(
    schemaKey: string,
    schema: object,
    input: unknown,
    queueKey = schemaKey,
  ): Promise<InputValidation> {
    return ask(
      queueKey,
      { input, schema, schemaKey },
      (message) => ("inputValidation" in message ? message.inputValidation : undefined),
      (field, rule) => ({
        ok: false,
        mismatch: {
          path: "input",
          message:
            rule === "compile_timeout"
              ? `could not be checked within ${budgetOf(field)} ms`
              : `needs more than ${heapMb} MB to check`,
        },
      }),
    );
  }

  return {
    validate,
    validateInput,
    waiting: () => waiting.size,
    close: async () => {
      await Promise.all([...alive].map((thread) => thread.terminate()));
    },
  };
}
