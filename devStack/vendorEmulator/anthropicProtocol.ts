// Anthropic's Messages wire format: https://docs.anthropic.com/en/api/messages and
// https://docs.anthropic.com/en/docs/build-with-claude/streaming
import { bearerTokenOf } from "./bearerToken.ts";
import { type ChatRequest, estimateTokens, type JsonSchema } from "./chatRequest.ts";
import { isRecord } from "./isRecord.ts";
import { JSON_SLICE, outputTokensOf, type PlannedMessage } from "./planAnswer.ts";
import {
  type IdSource,
  inputJson,
  type ProtocolAdapter,
  type StreamEvent,
} from "./protocolAdapter.ts";
import { splitIntoSlices } from "./splitIntoChunks.ts";

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

export const anthropicProtocol: ProtocolAdapter = {
  requestIdHeader: "request-id",

  // The API takes `x-api-key`; the SDK (1.x) sends its key as a bearer token.
  apiKeyOf(headers) {
    const key = headers["x-api-key"];
    return typeof key === "string" && key !== "" ? key : bearerTokenOf(headers);
  },

  authenticationError(apiKey) {
    return {
      status: 401,
      message: apiKey === undefined ? "x-api-key header is required" : "invalid x-api-key",
    };
  },

  parseRequest(body) {
    if (!isRecord(body)) return { invalid: "The request body must be a JSON object." };
    const { model, messages, max_tokens: maxTokens } = body;
    if (typeof model !== "string" || model === "") return { invalid: "model: Field required" };
    if (!Array.isArray(messages) || messages.length === 0) {
      return { invalid: "messages: at least one message is required" };
    }
    if (typeof maxTokens !== "number") return { invalid: "max_tokens: Field required" };
    const forced = forcedToolOf(body);
    if (forced && "invalid" in forced) return forced;
    return {
      model,
      stream: body.stream === true,
      includeUsage: false,
      systemPrompt: systemPromptOf(body.system),
      lastUserText: lastUserTextOf(messages),
      forcedTool: forced,
      responseSchema: responseSchemaOf(body.output_config),
      inputTokens: estimateTokens(JSON.stringify([body.system ?? "", messages, body.tools ?? []])),
    };
  },

  errorBody({ status, message, type }, requestId) {
    const errorType =
      type ?? ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
    return { type: "error", error: { type: errorType, message }, request_id: requestId };
  },

  completion(message, request, ids) {
    const head = messageHead(request, ids);
    return {
      ...head,
      content: blocksOf(message, ids),
      ...ending(message),
      usage: usageOf(request, outputTokensOf(message)),
    };
  },

  streamEvents(message, request, ids) {
    const events: StreamEvent[] = [];
    const push = (type: string, payload: object, carriesContent = false) =>
      events.push({ event: type, data: JSON.stringify({ type, ...payload }), carriesContent });

    const head = messageHead(request, ids);
    const usage = usageOf(request, 1);
    push("message_start", {
      message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage },
    });
    blocksOf(message, ids).forEach((block, index) => {
      if (block.type === "text") {
        push("content_block_start", { index, content_block: { type: "text", text: "" } });
      } else {
        push("content_block_start", { index, content_block: { ...block, input: {} } });
      }
      if (index === 0) push("ping", {});
      if (block.type === "text") {
        for (const text of message.textChunks) {
          push("content_block_delta", { index, delta: { type: "text_delta", text } }, true);
        }
      } else {
        for (const partialJson of splitIntoSlices(inputJson(block.input), JSON_SLICE)) {
          const delta = { type: "input_json_delta", partial_json: partialJson };
          push("content_block_delta", { index, delta }, true);
        }
      }
      push("content_block_stop", { index });
    });
    push("message_delta", {
      delta: ending(message),
      usage: { output_tokens: outputTokensOf(message) },
    });
    push("message_stop", {});
    return events;
  },
};

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** A text block when there is text (or nothing else), then one `tool_use` block per call. */
function blocksOf(message: PlannedMessage, ids: IdSource): Block[] {
  const text = message.textChunks.join("");
  const blocks: Block[] =
    text !== "" || message.toolCalls.length === 0 ? [{ type: "text", text }] : [];
  for (const { id, name, input } of message.toolCalls) {
    blocks.push({ type: "tool_use", id: id ?? ids("toolu_emu"), name, input });
  }
  return blocks;
}

function messageHead(request: ChatRequest, ids: IdSource) {
  return { id: ids("msg_emu"), type: "message", role: "assistant", model: request.model };
}

function ending(message: PlannedMessage) {
  return {
    stop_reason: message.toolCalls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
  };
}

function usageOf(request: ChatRequest, outputTokens: number) {
  return {
    input_tokens: request.inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    service_tier: "standard",
  };
}

/** `system` as a string or as text blocks, joined by newlines. */
function systemPromptOf(system: unknown): string {
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) return "";
  return system
    .filter((block) => isRecord(block) && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
}

/** The last user message with text: tool results come back as user messages without text. */
function lastUserTextOf(messages: unknown[]): string {
  for (const message of messages.toReversed()) {
    if (!isRecord(message) || message.role !== "user") continue;
    const { content } = message;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content
              .filter((block) => isRecord(block) && block.type === "text")
              .map((block) => block.text)
              .join("")
          : "";
    if (text !== "") return text;
  }
  return "";
}

/** `tool_choice: {type: "tool", name}` names the tool; `{type: "any"}` takes any. */
function forcedToolOf(
  body: Record<string, unknown>,
): ChatRequest["forcedTool"] | { invalid: string } {
  const tools = (Array.isArray(body.tools) ? body.tools : []).filter(isRecord);
  const choice = body.tool_choice;
  if (!isRecord(choice)) return undefined;
  let tool: Record<string, unknown> | undefined;
  if (choice.type === "any") {
    tool = tools[0];
  } else if (choice.type === "tool") {
    tool = tools.find((candidate) => candidate.name === choice.name);
    if (!tool) return { invalid: `tool_choice: tool '${String(choice.name)}' not found in tools` };
  }
  if (!tool) return undefined;
  return { name: String(tool.name), inputSchema: (tool.input_schema as JsonSchema) ?? {} };
}

/** Anthropic's structured outputs: `output_config: {format: {type: "json_schema", schema}}`. */
function responseSchemaOf(outputConfig: unknown): JsonSchema | undefined {
  if (!isRecord(outputConfig) || !isRecord(outputConfig.format)) return undefined;
  if (outputConfig.format.type !== "json_schema") return undefined;
  return (outputConfig.format.schema as JsonSchema | undefined) ?? {};
}
