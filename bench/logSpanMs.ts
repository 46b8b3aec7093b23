/**
 * Milliseconds between the first line of Ponder's log containing `from` and the next containing `to`,
 * read from the lines' HH:MM:SS.mmm stamps; undefined when either line is missing.
 */
export function logSpanMs(log: string, from: string, to: string): number | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colours
  const lines = log.replace(/\u001b\[[0-9;]*m/g, "").split("\n");
  const stamp = (line: string) => {
    const match = /^(\d\d):(\d\d):(\d\d)\.(\d{3})\s/.exec(line);
    if (!match) return undefined;
    const [, h, m, s, ms] = match.map(Number) as [number, number, number, number, number];
    return ((h * 60 + m) * 60 + s) * 1000 + ms;
  };
  const start = lines.findIndex((line) => line.includes(from) && stamp(line) !== undefined);
  if (start < 0) return undefined;
  const end = lines.findIndex(
    (line, i) => i > start && line.includes(to) && stamp(line) !== undefined,
  );
  if (end < 0) return undefined;
  const span = (stamp(lines[end] as string) as number) - (stamp(lines[start] as string) as number);
  return span < 0 ? span + 24 * 3_600_000 : span;
}
