// What the stack's servers print, kept for tests that read the API's and workers' JSON logs.

/** One JSON log line of an API or worker process. */
export type LogEntry = { level: string; component: string; message: string } & Record<
  string,
  unknown
>;

/** Pass `onOutput` to the stack; read back the raw text or the JSON log entries printed so far. */
export function captureOutput() {
  let text = "";
  return {
    onOutput: (chunk: string) => {
      text += chunk;
    },
    text: () => text,
    entries: (): LogEntry[] =>
      text.split("\n").flatMap((line) => {
        if (!line.startsWith("{")) return [];
        try {
          return [JSON.parse(line) as LogEntry];
        } catch {
          return [];
        }
      }),
  };
}

/** Whether a line of `output` (chunks as the stack passes them) after chunk `from` holds all `parts`. */
export function heardSince(output: readonly string[], from: number, ...parts: string[]): boolean {
  return output
    .slice(from)
    .join("")
    .split("\n")
    .some((line) => parts.every((part) => line.includes(part)));
}
