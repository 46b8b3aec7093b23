/** The run's input as the `input_only` tools read it. */
export type RunInput = {
  /** The input: the run's `input`, or the text at `input_uri` (parsed when it is JSON). */
  value: unknown;
  /** The same as text: a string as it is, anything else as indented JSON; "" when there is none. */
  text: string;
};

/** The run gives `input` or the text read from its `input_uri`, never both (the spec). */
export function runInputOf(run: {
  input?: string | Record<string, unknown>;
  inputText?: string;
}): RunInput {
  if (run.inputText !== undefined) {
    return { value: parsedOr(run.inputText), text: run.inputText };
  }
  if (run.input === undefined) return { value: undefined, text: "" };
  return {
    value: run.input,
    text: typeof run.input === "string" ? run.input : JSON.stringify(run.input, null, 2),
  };
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
