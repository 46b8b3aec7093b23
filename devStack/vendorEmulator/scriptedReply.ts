/**
 * One answer the emulator gives to the next request naming a model (see
 * `VendorEmulator.script`). The answer's content is one of the kinds below; every kind takes the
 * {@link ReplyTiming} options too. Each is rendered in the wire format of the protocol that was
 * called, streamed or not as the request asked.
 *
 * @example
 * emulator.script("gpt-test", [
 *   { kind: "toolCalls", calls: [{ name: "lookup", arguments: { city: "Paris" } }] },
 *   { kind: "text", text: ["It is ", "sunny."], chunkDelayMs: 20 },
 * ]);
 */
export type ScriptedReply = ScriptedContent & ReplyTiming;

export type ScriptedContent =
  | ScriptedText
  | ScriptedToolCalls
  | ScriptedJson
  | ScriptedError
  | ScriptedSystemPromptEcho
  | ScriptedDefault
  | ScriptedHang;

/** A plain text answer (OpenAI `finish_reason: "stop"`, Anthropic `stop_reason: "end_turn"`). */
export type ScriptedText = {
  kind: "text";
  /**
   * The answer. A string is streamed word by word; an array is streamed one element per chunk
   * (its elements joined make the answer, and the whole answer when not streaming).
   */
  text: string | string[];
};

/**
 * The model asks for one or several tool calls in one reply: OpenAI `message.tool_calls` with
 * `finish_reason: "tool_calls"`, Anthropic `tool_use` blocks with `stop_reason: "tool_use"`.
 * Their ids are made up (`call_emu…`, `toolu_emu…`) unless given.
 */
export type ScriptedToolCalls = {
  kind: "toolCalls";
  calls: ScriptedToolCall[];
  /** Text the model writes before its calls (OpenAI `content`, an Anthropic `text` block). */
  text?: string;
};

export type ScriptedToolCall = {
  name: string;
  /** The call's input: OpenAI receives it as a JSON string, Anthropic as `input`. */
  arguments: Record<string, unknown>;
  id?: string;
};

/**
 * A structured answer. When the request forces a tool (Anthropic `tool_choice: {type: "tool"}`,
 * OpenAI `tool_choice: {type: "function"}`), the value is that tool's input in a tool call, the
 * way structured output is asked of Anthropic's models; otherwise it is the answer's text as JSON
 * (OpenAI `response_format: {type: "json_schema"}`, Anthropic `output_config.format`). The value is
 * sent as given: script one that breaks the schema to see how a client copes.
 */
export type ScriptedJson = { kind: "json"; value: unknown };

/**
 * An error answer in the vendor's shape: OpenAI `{error: {message, type, param, code}}`,
 * Anthropic `{type: "error", error: {type, message}, request_id}`.
 */
export type ScriptedError = {
  kind: "error";
  /** e.g. 429, 500, 401, 529 (Anthropic's overloaded). */
  status: number;
  /** Defaults to a message naming the status. */
  message?: string;
  /** The vendor's error type; defaults to the one that vendor uses for the status. */
  type?: string;
  /** OpenAI's `error.code`; defaults to the one OpenAI uses for the status, if any. */
  code?: string;
  /** Sent as the `retry-after` header, in seconds. */
  retryAfterSeconds?: number;
  /**
   * Appends the request's API key to the message, as some vendors' errors do: for checking that a
   * vendor's error text never reaches anyone else unredacted.
   */
  echoApiKey?: boolean;
  /** More response headers, e.g. `{"x-should-retry": "false"}`. */
  headers?: Record<string, string>;
};

/**
 * A text answer repeating the request's system prompt verbatim (OpenAI's `system` and `developer`
 * messages, Anthropic's `system`, joined by newlines): what a successful prompt injection looks
 * like.
 */
export type ScriptedSystemPromptEcho = { kind: "echoSystemPrompt" };

/** The answer the emulator gives without a script, here to combine it with {@link ReplyTiming}. */
export type ScriptedDefault = { kind: "default" };

/** No answer at all: the request stays open until the client gives up or the emulator stops. */
export type ScriptedHang = { kind: "hang" };

/** When the answer arrives, and how much of it. */
export type ReplyTiming = {
  /** Milliseconds to wait before answering (before the status line). */
  delayMs?: number;
  /** Streaming: milliseconds to wait between two chunks of the answer. */
  chunkDelayMs?: number;
  /**
   * Destroys the connection after this many chunks of the answer (text pieces, tool-argument
   * pieces; after the last one when there are fewer), without the stream's end (`[DONE]`,
   * `message_stop`). The protocol's opening events (OpenAI's role chunk, Anthropic's
   * `message_start`) are always sent first, so 0 cuts right after them. A request that is not
   * streamed gets its headers and half its body, then the cut.
   */
  cutAfterChunks?: number;
};
