// OpenAI's Chat Completions wire format, which self-hosted servers (vLLM, llama.cpp, Ollama) speak
// too: https://platform.openai.com/docs/api-reference/chat
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

export const openaiProtocol: ProtocolAdapter = {
  requestIdHeader: "x-request-id",

  apiKeyOf: bearerTokenOf,

  authenticationError(apiKey) {
    return apiKey === undefined
      ? {
          status: 401,
          message:
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          code: null,
        }
      : { status: 401, message: "Incorrect API key provided.", code: "invalid_api_key" };
  },

  parseRequest(body) {
    if (!isRecord(body)) return { invalid: "The request body must be a JSON object." };
    const { model, messages } = body;
    if (typeof model !== "string" || model === "") {
      return { invalid: "you must provide a model parameter" };
    }
    if (!Array.isArray(messages) || messages.length === 0) {
      return { invalid: "'messages' must be a non-empty array." };
    }
    const forced = forcedToolOf(body);
    if (forced && "invalid" in forced) return forced;
    const stream = body.stream === true;
    return {
      model,
      stream,
      includeUsage:
        stream && isRecord(body.stream_options) && body.stream_options.include_usage === true,
      systemPrompt: messages
        .filter((message) => message?.role === "system" || message?.role === "developer")
        .map((message) => textOf(message.content))
        .join("\n"),
      lastUserText: lastUserTextOf(messages),
      forcedTool: forced,
      responseSchema: responseSchemaOf(body.response_format),
      inputTokens: estimateTokens(JSON.stringify([messages, body.tools ?? []])),
    };
  },

  errorBody({ status, message, type, code }) {
    return {
      error: {
        message,
        type: type ?? errorTypeFor(status),
        param: null,
        code: code === undefined ? errorCodeFor(status) : code,
      },
    };
  },

  completion(message, request, ids) {
    const calls = toolCallsOf(message, ids);
    const text = message.textChunks.join("");
    return {
      id: ids("chatcmpl-emu"),
      object: "chat.completion",
      created: nowInSeconds(),
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: calls.length > 0 && text === "" ? null : text,
            refusal: null,
            annotations: [],
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          logprobs: null,
          finish_reason: calls.length > 0 ? "tool_calls" : "stop",
        },
      ],
      usage: usageOf(message, request),
      service_tier: "default",
      system_fingerprint: null,
    };
  },

  streamEvents(message, request, ids) {
    const calls = toolCallsOf(message, ids);
    const base = {
      id: ids("chatcmpl-emu"),
      object: "chat.completion.chunk",
      created: nowInSeconds(),
      model: request.model,
      service_tier: "default",
      system_fingerprint: null,
    };
    const chunk = (delta: object, carriesContent: boolean, finishReason: string | null = null) =>
      event(carriesContent, {
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        ...(request.includeUsage ? { usage: null } : {}),
      });

    const opening = calls.length > 0 && message.textChunks.length === 0 ? null : "";
    const events = [chunk({ role: "assistant", content: opening, refusal: null }, false)];
    for (const text of message.textChunks) events.push(chunk({ content: text }, true));
    calls.forEach(({ id, type, function: { name, arguments: args } }, index) => {
      events.push(
        chunk({ tool_calls: [{ index, id, type, function: { name, arguments: "" } }] }, false),
      );
      for (const slice of splitIntoSlices(args, JSON_SLICE)) {
        events.push(chunk({ tool_calls: [{ index, function: { arguments: slice } }] }, true));
      }
    });
    events.push(chunk({}, false, calls.length > 0 ? "tool_calls" : "stop"));
    if (request.includeUsage) {
      events.push(event(false, { ...base, choices: [], usage: usageOf(message, request) }));
    }
    events.push({ data: "[DONE]", carriesContent: false });
    return events;
  },
};

function event(carriesContent: boolean, data: object): StreamEvent {
  return { data: JSON.stringify(data), carriesContent };
}

/** A message's text: a string, or the text parts of an array of content parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => isRecord(part) && part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

function lastUserTextOf(messages: unknown[]): string {
  for (const message of messages.toReversed()) {
    if (!isRecord(message) || message.role !== "user") continue;
    const text = textOf(message.content);
    if (text !== "") return text;
  }
  return "";
}

/** `tool_choice: {type: "function", function: {name}}` names the tool; `"required"` takes any. */
function forcedToolOf(
  body: Record<string, unknown>,
): ChatRequest["forcedTool"] | { invalid: string } {
  const tools = (Array.isArray(body.tools) ? body.tools : []).filter(
    (tool) => isRecord(tool) && isRecord(tool.function),
  );
  const choice = body.tool_choice;
  let tool: Record<string, unknown> | undefined;
  if (choice === "required") {
    tool = tools[0];
  } else if (isRecord(choice) && isRecord(choice.function)) {
    const name = choice.function.name;
    tool = tools.find((candidate) => candidate.function.name === name);
    if (!tool) return { invalid: `Invalid 'tool_choice': no function named '${name}' in 'tools'.` };
  }
  if (!tool || !isRecord(tool.function)) return undefined;
  return {
    name: String(tool.function.name),
    inputSchema: (tool.function.parameters as JsonSchema | undefined) ?? {},
  };
}

function responseSchemaOf(format: unknown): JsonSchema | undefined {
  if (!isRecord(format)) return undefined;
  if (format.type === "json_object") return { type: "object" };
  if (format.type !== "json_schema" || !isRecord(format.json_schema)) return undefined;
  return (format.json_schema.schema as JsonSchema | undefined) ?? {};
}

function toolCallsOf(message: PlannedMessage, ids: IdSource) {
  return message.toolCalls.map(({ id, name, input }) => ({
    id: id ?? ids("call_emu"),
    type: "function" as const,
    function: { name, arguments: inputJson(input) },
  }));
}

function usageOf(message: PlannedMessage, request: ChatRequest) {
  const completionTokens = outputTokensOf(message);
  return {
    prompt_tokens: request.inputTokens,
    completion_tokens: completionTokens,
    total_tokens: request.inputTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function errorTypeFor(status: number): string {
  if (status === 429) return "requests";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function errorCodeFor(status: number): string | null {
  if (status === 401) return "invalid_api_key";
  if (status === 429) return "rate_limit_exceeded";
  return null;
}

function nowInSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
