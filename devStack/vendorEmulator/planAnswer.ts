import { type ChatRequest, estimateTokens } from "./chatRequest.ts";
import { exampleFromSchema } from "./exampleFromSchema.ts";
import type { ScriptedContent, ScriptedError } from "./scriptedReply.ts";
import { splitIntoSlices, splitIntoWords } from "./splitIntoChunks.ts";

/** What to answer, before a protocol puts it on the wire. */
export type PlannedAnswer =
  | PlannedMessage
  | { kind: "error"; error: ScriptedError }
  | { kind: "hang" };

/** An assistant message: text (in its streaming chunks), then tool calls. */
export type PlannedMessage = {
  kind: "message";
  textChunks: string[];
  toolCalls: PlannedToolCall[];
};

export type PlannedToolCall = { id: string | undefined; name: string; input: unknown };

/** The default text answer quotes this much of the last user message. */
const QUOTED_CHARACTERS = 200;
/** Streamed JSON answers come in slices of this many characters. */
export const JSON_SLICE = 16;

/** The answer to `request`: the scripted one, or the default when nothing is scripted. */
export function planAnswer(
  request: ChatRequest,
  scripted: ScriptedContent = { kind: "default" },
): PlannedAnswer {
  switch (scripted.kind) {
    case "text":
      return textMessage(
        Array.isArray(scripted.text) ? scripted.text : splitIntoWords(scripted.text),
      );
    case "toolCalls":
      return {
        kind: "message",
        textChunks: splitIntoWords(scripted.text ?? ""),
        toolCalls: scripted.calls.map(({ id, name, arguments: input }) => ({ id, name, input })),
      };
    case "json":
      return structuredAnswer(request, scripted.value);
    case "error":
      return { kind: "error", error: scripted };
    case "echoSystemPrompt":
      return textMessage(splitIntoWords(request.systemPrompt));
    case "hang":
      return { kind: "hang" };
    case "default":
      return defaultAnswer(request);
  }
}

function defaultAnswer(request: ChatRequest): PlannedAnswer {
  if (request.forcedTool) {
    return structuredAnswer(request, exampleFromSchema(request.forcedTool.inputSchema));
  }
  if (request.responseSchema !== undefined) {
    return structuredAnswer(request, exampleFromSchema(request.responseSchema));
  }
  const quoted = Array.from(request.lastUserText).slice(0, QUOTED_CHARACTERS).join("");
  return textMessage(splitIntoWords(`Done: ${quoted}`));
}

/** A forced tool's input when the request forces one, else the answer's text as JSON. */
function structuredAnswer(request: ChatRequest, value: unknown): PlannedMessage {
  if (request.forcedTool) {
    return {
      kind: "message",
      textChunks: [],
      toolCalls: [{ id: undefined, name: request.forcedTool.name, input: value }],
    };
  }
  return textMessage(splitIntoSlices(JSON.stringify(value) ?? "null", JSON_SLICE));
}

function textMessage(textChunks: string[]): PlannedMessage {
  return { kind: "message", textChunks, toolCalls: [] };
}

/** A stand-in for the answer's token count, from its size (at least one). */
export function outputTokensOf(message: PlannedMessage): number {
  const calls = message.toolCalls.map(({ name, input }) => name + JSON.stringify(input));
  return Math.max(1, estimateTokens(message.textChunks.join("") + calls.join("")));
}
