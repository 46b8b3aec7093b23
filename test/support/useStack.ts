import { afterAll, beforeAll, expect } from "vitest";
import { type Stack, type StackOptions, startStack } from "../../devStack/startStack.ts";
import { secretScan } from "./secretScan.ts";

/**
 * The stack of this test file: started before its tests, stopped after them. Read it inside tests
 * and hooks (`stack()`), once it is running. Everything its processes print is scanned for secrets
 * (tokens, keys and signatures by shape, the stack's own keys and Postgres password) once it has
 * stopped.
 */
export function useStack(options: StackOptions = {}): () => Stack {
  const scan = secretScan();
  let stack: Stack | undefined;
  let starting: Promise<Stack> | undefined;
  beforeAll(async () => {
    starting = startStack({
      ...options,
      onOutput: (chunk) => {
        scan.onOutput(chunk);
        options.onOutput?.(chunk);
      },
    });
    stack = await starting;
  });
  afterAll(async () => {
    // A start that outlived its hook's timeout is stopped once it is up: no process outlives the file.
    await (stack ?? (await starting?.catch(() => undefined)))?.stop();
    // Scanned once every process has stopped and its last lines are read: nothing is left unscanned.
    if (stack) expect(scan.leaks(stack), "secrets in the stack's output").toEqual([]);
  });
  return () => {
    if (!stack) throw new Error("the stack is not running yet");
    return stack;
  };
}
