import { afterAll, beforeAll } from "vitest";
import { type Stack, type StackOptions, startStack } from "../../devStack/startStack.ts";

/**
 * The stack of this test file: started before its tests, stopped after them. Read it inside tests
 * and hooks (`stack()`), once it is running.
 */
export function useStack(options: StackOptions = {}): () => Stack {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(options);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  return () => {
    if (!stack) throw new Error("the stack is not running yet");
    return stack;
  };
}
