/** A JSON Schema as a request carries it (OpenAI `json_schema.schema`, a tool's parameters). */
export type JsonSchema = Record<string, unknown> | boolean;

/** What the emulator needs from a chat request, whichever protocol carried it. */
export type ChatRequest = {
  model: string;
  stream: boolean;
  /** OpenAI's `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean;
  /** The system instructions, verbatim, several joined by newlines; "" when there are none. */
  systemPrompt: string;
  /** The text of the last user message that has text (tool results are not user text). */
  lastUserText: string;
  /** The tool the request makes the model call: the one named, or the first when any will do. */
  forcedTool: { name: string; inputSchema: JsonSchema } | undefined;
  /** The schema the answer's text must follow (OpenAI `response_format`, Anthropic `output_config`). */
  responseSchema: JsonSchema | undefined;
  /** A stand-in for the prompt's token count, from its size. */
  inputTokens: number;
};

/** A rough token count (four characters a token), so usage figures move with the text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
