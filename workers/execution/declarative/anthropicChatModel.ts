import type Anthropic from "@anthropic-ai/sdk";
import type {
  MessageCreateParamsStreaming,
  MessageParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { ChatMessage, ChatModel, TokenUsage, ToolCall, TurnRequest } from "./chatModel.ts";

/**
 * The tool an object output is given through: the second vendor has no response format, so the
 * answer is the arguments of a call to this tool, whose input schema is the agent's output schema.
 */
export const OUTPUT_TOOL = "submit_output";

/**
 * A chat model behind the Messages protocol of the second vendor. Streams each turn; an object
 * output is the (streamed) JSON input of a forced call to `submit_output`, returned as the turn's
 * text, never as a tool call.
 */
export function anthropicChatModel(client: Anthropic, model: string): ChatModel {
  return async (request) => {
    const stream = await client.messages.create(messagesRequest(model, request), {
      signal: request.signal,
    });
    let text = "";
    const calls = new Map<number, ToolCall>();
    let outputBlock: number | undefined;
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    for await (const event of stream) {
      // The input's tokens come first; the output's, counted so far, with each message delta.
      if (event.type === "message_start") {
        usage.inputTokens = event.message.usage.input_tokens;
        usage.outputTokens = event.message.usage.output_tokens;
      } else if (event.type === "message_delta") {
        usage.outputTokens = event.usage.output_tokens;
      }
      if (event.type === "content_block_start" && event.content_block.type === "tool_use") {
        const { id, name } = event.content_block;
        if (name === OUTPUT_TOOL && request.outputSchema) outputBlock = event.index;
        else calls.set(event.index, { id, name, arguments: "" });
      } else if (event.type === "content_block_delta") {
        const { delta } = event;
        if (delta.type === "text_delta" && !request.outputSchema) {
          text += delta.text;
          request.onText(delta.text);
        } else if (delta.type === "input_json_delta") {
          if (event.index === outputBlock) {
            text += delta.partial_json;
            request.onText(delta.partial_json);
          } else {
            const call = calls.get(event.index);
            if (call) call.arguments += delta.partial_json;
          }
        }
      }
    }
    return { text, toolCalls: [...calls.values()], usage };
  };
}

function messagesRequest(
  model: string,
  { system, messages, tools, outputSchema, maxOutputTokens }: TurnRequest,
): MessageCreateParamsStreaming {
  const offered = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as { type: "object" },
  }));
  if (outputSchema) {
    offered.push({
      name: OUTPUT_TOOL,
      description: "Submit the final output of the task.",
      input_schema: outputSchema as { type: "object" },
    });
  }
  return {
    model,
    stream: true,
    max_tokens: maxOutputTokens,
    system,
    messages: messagesParam(messages),
    ...(offered.length > 0 && { tools: offered }),
    // With tools of its own, the model may call them before it submits; without, it submits at once.
    ...(outputSchema && {
      tool_choice:
        tools.length > 0 ? { type: "any" as const } : { type: "tool" as const, name: OUTPUT_TOOL },
    }),
  };
}

/** Tool results follow their call in one user message, as the protocol requires. */
function messagesParam(messages: ChatMessage[]): MessageParam[] {
  const params: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      params.push({ role: "user", content: message.content });
    } else if (message.role === "assistant") {
      params.push({
        role: "assistant",
        content: [
          ...(message.text ? [{ type: "text" as const, text: message.text }] : []),
          ...message.toolCalls.map((call) => ({
            type: "tool_use" as const,
            id: call.id,
            name: call.name,
            input: parseArguments(call.arguments),
          })),
        ],
      });
    } else {
      const result: ToolResultBlockParam = {
        type: "tool_result",
        tool_use_id: message.callId,
        content: message.content,
      };
      const last = params.at(-1);
      if (last?.role === "user" && Array.isArray(last.content)) last.content.push(result);
      else params.push({ role: "user", content: [result] });
    }
  }
  return params;
}

/** What the model sent as a call's arguments, as the object the protocol echoes back. */
function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
