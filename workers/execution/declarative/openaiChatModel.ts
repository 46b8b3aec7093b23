import type OpenAI from "openai";
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { ChatMessage, ChatModel, TokenUsage, ToolCall, TurnRequest } from "./chatModel.ts";

/**
 * A chat model behind the Chat Completions protocol: the first vendor, and every self-hosted server
 * (vLLM, llama.cpp's server, Ollama). Streams each turn; an object output asks for a JSON-schema
 * response format, whose JSON text streams like any answer.
 */
export function openaiChatModel(
  client: OpenAI,
  model: string,
  { selfHosted = false }: { selfHosted?: boolean } = {},
): ChatModel {
  return async (request) => {
    const stream = await client.chat.completions.create(
      completionRequest(model, request, selfHosted),
      {
        signal: request.signal,
      },
    );
    let text = "";
    const calls: ToolCall[] = [];
    let usage: TokenUsage | undefined;
    for await (const chunk of stream) {
      // The last chunk, with no choices, when the request asked for it (`include_usage`).
      if (chunk.usage) {
        usage = {
          inputTokens: chunk.usage.prompt_tokens,
          outputTokens: chunk.usage.completion_tokens,
        };
      }
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) {
        text += delta.content;
        request.onText(delta.content);
      }
      for (const piece of delta.tool_calls ?? []) {
        calls[piece.index] ??= { id: "", name: "", arguments: "" };
        const call = calls[piece.index] as ToolCall;
        call.id ||= piece.id ?? "";
        call.name += piece.function?.name ?? "";
        call.arguments += piece.function?.arguments ?? "";
      }
    }
    return { text, toolCalls: calls.filter(Boolean), ...(usage && { usage }) };
  };
}

function completionRequest(
  model: string,
  { system, messages, tools, outputSchema, maxOutputTokens }: TurnRequest,
  selfHosted: boolean,
): ChatCompletionCreateParamsStreaming {
  return {
    model,
    stream: true,
    // Self-hosted servers may not know it; the vendor then ends the stream with the turn's tokens.
    ...(!selfHosted && { stream_options: { include_usage: true } }),
    // Self-hosted servers know the older name; the vendor's newer models only the newer one.
    ...(selfHosted ? { max_tokens: maxOutputTokens } : { max_completion_tokens: maxOutputTokens }),
    messages: [{ role: "system", content: system }, ...messages.map(completionMessage)],
    ...(tools.length > 0 && {
      tools: tools.map((tool) => ({
        type: "function" as const,
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      })),
    }),
    ...(outputSchema && {
      response_format: {
        type: "json_schema" as const,
        json_schema: { name: "output", schema: outputSchema },
      },
    }),
  };
}

function completionMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.callId, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.text || null,
        ...(message.toolCalls.length > 0 && {
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: "function" as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
      };
  }
}
