// Real contexts for built-in tools under test, as the toolbox makes them, with nothing recorded:
// a tool's own tests call it through one, against real HTTPS servers on loopback.
import type { ToolScope } from "../../lib/manifest/manifestShape.ts";
import type { ToolContext } from "../../workers/execution/declarative/tools/builtInTool.ts";
import { outboundAllowance } from "../../workers/execution/declarative/tools/outboundAllowance.ts";
import { runInputOf } from "../../workers/execution/declarative/tools/runInput.ts";
import {
  type ToolContextOptions,
  toolContext,
} from "../../workers/execution/declarative/tools/toolContext.ts";
import type { OutboundPolicy } from "../../workers/execution/outbound/outboundPolicy.ts";

export type TestContextOptions = Partial<Omit<ToolContextOptions, "input" | "allowance">> & {
  input?: string | Record<string, unknown>;
  inputText?: string;
  policy: OutboundPolicy;
  maxOutboundBytes?: number;
};

/** A context for a tool of `scope`, and what its calls read from outside so far. */
export function testContext<Scope extends ToolScope>(
  scope: Scope,
  { input, inputText, maxOutboundBytes = 2 * 1024 * 1024, ...options }: TestContextOptions,
): { context: ToolContext<Scope>; readBytes: () => number } {
  let read = 0;
  const runInput = runInputOf({
    ...(input !== undefined && { input }),
    ...(inputText !== undefined && { inputText }),
  });
  const context = toolContext(
    scope,
    {
      signal: AbortSignal.timeout(10_000),
      maxResultBytes: 16 * 1024,
      toolDomains: [],
      wasRead: () => false,
      ...options,
      input: () => runInput,
      allowance: outboundAllowance(maxOutboundBytes),
    },
    (bytes) => {
      read += bytes;
    },
  );
  return { context, readBytes: () => read };
}

/** The refusal or failure `call` ends in, as its class name and message. */
export async function endOf(call: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const error = await call.then(
    () => {
      throw new Error("the call succeeded");
    },
    (error: unknown) => error,
  );
  return { kind: (error as Error).constructor.name, message: (error as Error).message };
}
