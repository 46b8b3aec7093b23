import type { Logger } from "../../../lib/log.ts";
import { OutboundFailure } from "../outbound/outboundFailure.ts";
import type { RunContext, RunOutcome, Runtime } from "../runtime.ts";
import { untilDeadline } from "../untilDeadline.ts";
import type { ChatMessage, ChatModel, TokenUsage, ToolDefinition } from "./chatModel.ts";
import type { OutputContract } from "./outputContract.ts";
import { systemMessage, userMessage } from "./promptLayout.ts";
import { promptLeakGuard } from "./promptLeakGuard.ts";
import { vendorFailure } from "./vendorErrors.ts";
import { callVendorRetrying } from "./vendorRetry.ts";

/** The most model turns a run takes: each turn but the last answers tool calls. */
export const MAX_MODEL_TURNS = 10;
/** The longest output a run keeps, in characters. */
export const MAX_OUTPUT_CHARS = 256 * 1024;
/** Tool calls of one turn that are run; more are answered as refused, unrun. */
export const MAX_TOOL_CALLS_PER_TURN = 10;
/** What each model turn may write at most, in tokens. */
export const MAX_OUTPUT_TOKENS = 4096;

export const PROMPT_REPEATED =
  "the answer repeated the agent's private instructions and was withheld";
export const TOO_MANY_TURNS = `the agent did not answer within ${MAX_MODEL_TURNS} model turns`;
export const OUTPUT_TOO_LONG = `the output is longer than ${MAX_OUTPUT_CHARS} characters`;
export const NOT_JSON = "the model's answer is not valid JSON";

/** The tools of one run (tools/toolbox.ts): a call never throws, it answers the model in words. */
export type RunTools = {
  definitions: ToolDefinition[];
  call: (name: string, rawArguments: string) => Promise<string>;
};

/** A declarative agent as its worker opened it for one run. */
export type DeclarativeAgent = {
  systemPrompt: string;
  model: ChatModel;
  output: OutputContract;
  /** The run's tools, scoped to its input (the content of `input_uri` when it has one). */
  openTools: (run: RunContext, inputText: string | undefined, signal: AbortSignal) => RunTools;
  /** The content behind a run's `input_uri`, through the outbound guard. */
  readInputUri: (uri: string, signal: AbortSignal) => Promise<string>;
};

class RunFailed extends Error {}

/**
 * Runs a declarative agent: the creator's prompt and the renter's task and input (promptLayout.ts)
 * sent to the model, its tool calls answered by the run's tools until it answers, its text streamed
 * to the renter as it comes through the prompt-leak guard. The output is the text, or the JSON the
 * model was asked to conform to the output schema. Vendor rate limits and outages are retried
 * within the deadline; what still fails, fails the run with a reason that holds no secret.
 */
export function declarativeAgent(agent: DeclarativeAgent, log: Logger): Runtime {
  return async (run) => {
    let sent = "";
    const guard = promptLeakGuard(agent.systemPrompt, (text) => {
      sent += text;
      run.onDelta(text);
    });
    let usage: TokenUsage | undefined;
    const failed = (failure: string): RunOutcome => ({
      status: "failed",
      output: sent,
      failure,
      ...(usage && { usage }),
    });
    const signal = untilDeadline(run);
    try {
      const inputText = run.inputUri ? await agent.readInputUri(run.inputUri, signal) : undefined;
      const tools = agent.openTools(run, inputText, signal);
      const messages: ChatMessage[] = [
        { role: "user", content: userMessage(run.task, inputText ?? run.input) },
      ];
      let written = "";
      for (let turn = 1; ; turn++) {
        let streamed = false;
        const answer = await callVendorRetrying(
          () =>
            agent.model({
              system: systemMessage(agent.systemPrompt),
              messages,
              tools: tools.definitions,
              ...(agent.output.kind === "json" && { outputSchema: agent.output.vendorSchema }),
              maxOutputTokens: MAX_OUTPUT_TOKENS,
              signal,
              onText: (delta) => {
                streamed = true;
                written += delta;
                if (written.length > MAX_OUTPUT_CHARS) throw new RunFailed(OUTPUT_TOO_LONG);
                if (!guard.push(delta)) throw new RunFailed(PROMPT_REPEATED);
              },
            }),
          { deadline: run.deadline, signal, streamed: () => streamed },
        );
        if (answer.usage) usage = addedUp(usage, answer.usage);
        // The vendors' clients end a stream stopped mid-way as if it were whole.
        signal.throwIfAborted();
        if (answer.toolCalls.length === 0) {
          if (!guard.flush()) throw new RunFailed(PROMPT_REPEATED);
          const output = readOutput(agent, written, answer.text, guard);
          return { status: "completed", output, ...(usage && { usage }) };
        }
        if (turn === MAX_MODEL_TURNS) throw new RunFailed(TOO_MANY_TURNS);
        messages.push({ role: "assistant", text: answer.text, toolCalls: answer.toolCalls });
        for (const [index, call] of answer.toolCalls.entries()) {
          if (sendsPrompt(guard, call.arguments)) throw new RunFailed(PROMPT_REPEATED);
          // Every call needs an answer; past the cap, one that costs nothing.
          const content =
            index < MAX_TOOL_CALLS_PER_TURN
              ? await tools.call(call.name, call.arguments)
              : `refused: at most ${MAX_TOOL_CALLS_PER_TURN} tool calls a turn are run`;
          messages.push({ role: "tool", callId: call.id, content });
        }
      }
    } catch (error) {
      // What was held back is the renter's once read clean (a repeat of the prompt is never sent).
      guard.flush();
      if (error instanceof RunFailed || error instanceof OutboundFailure)
        return failed(error.message);
      const failure = vendorFailure(error);
      if (failure) return failed(failure);
      // An abort: the worker has ended the run already (deadline or interruption).
      if (signal.aborted) return failed("the run was stopped");
      log.error("declarative agent failed unexpectedly", {
        run_id: run.runId,
        error: error instanceof Error ? error.name : typeof error,
      });
      return failed("the agent could not be run");
    }
  };
}

const addedUp = (sum: TokenUsage | undefined, turn: TokenUsage): TokenUsage => ({
  inputTokens: (sum?.inputTokens ?? 0) + turn.inputTokens,
  outputTokens: (sum?.outputTokens ?? 0) + turn.outputTokens,
});

/** A text output is all the model wrote; a JSON one, the last answer read back. */
function readOutput(
  agent: DeclarativeAgent,
  written: string,
  lastAnswer: string,
  guard: { repeats: (text: string) => boolean },
): unknown {
  if (agent.output.kind === "text") return written;
  let answer: unknown;
  try {
    answer = JSON.parse(lastAnswer);
  } catch {
    throw new RunFailed(NOT_JSON);
  }
  if (guard.repeats(stringsOf(answer).join(" "))) throw new RunFailed(PROMPT_REPEATED);
  return agent.output.read(answer);
}

/**
 * Whether a tool call's arguments carry the prompt, as written or as the tool would send them: JSON
 * escapes decoded (the URL a read_only tool GETs, the path a repo_scoped one reads).
 */
function sendsPrompt(guard: { repeats: (text: string) => boolean }, rawArguments: string): boolean {
  if (guard.repeats(rawArguments)) return true;
  try {
    return guard.repeats(stringsOf(JSON.parse(rawArguments)).join(" "));
  } catch {
    return false;
  }
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value && typeof value === "object") return Object.values(value).flatMap(stringsOf);
  return [];
}
