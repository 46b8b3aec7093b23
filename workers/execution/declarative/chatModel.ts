// What the declarative runtime asks of a chat model, whichever vendor serves it.

/** A tool the model may call: the built-in tools a manifest names (tools/toolbox.ts). */
export type ToolDefinition = {
  name: string;
  description: string;
  /** JSON Schema of the arguments, `type: "object"`. */
  parameters: Record<string, unknown>;
};

export type ToolCall = { id: string; name: string; arguments: string };

export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; text: string; toolCalls: ToolCall[] }
  | { role: "tool"; callId: string; content: string };

/** Tokens a vendor counted for a turn, when it reports them. */
export type TokenUsage = { inputTokens: number; outputTokens: number };

/** One answer of the model: text, tool calls, or both, and its tokens where the vendor counts them. */
export type ModelTurn = { text: string; toolCalls: ToolCall[]; usage?: TokenUsage };

export type TurnRequest = {
  system: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** The agent's `output_schema` when its output is an object: the answer is JSON text of it. */
  outputSchema?: Record<string, unknown>;
  maxOutputTokens: number;
  signal: AbortSignal;
  /** Text (or, for an object output, JSON text) as the model streams it. */
  onText: (delta: string) => void;
};

/** One model turn, streamed. Throws the vendor client's errors (see vendorRetry.ts). */
export type ChatModel = (request: TurnRequest) => Promise<ModelTurn>;
