// Bounded views of a text for a model to read: a page from an offset, numbered lines, the lines
// containing a literal text (no pattern language, so no search a text can make slow).
import { ToolFailure } from "./builtInTool.ts";

/** Room kept in every answer for the line saying which part of the text it is. */
const HEADER_BYTES = 200;
/** A line longer than this is shown in part: a minified file is one line. */
const MAX_LINE_CHARACTERS = 400;
/** How much of a long line is shown before a match in it. */
const CONTEXT_BEFORE_MATCH = 100;

/** The part of `text` from `offset` (in characters) that fits `maxBytes` of UTF-8. */
export function pageOf(
  text: string,
  offset: number,
  maxBytes: number,
): { page: string; end: number } {
  let bytes = 0;
  let end = offset;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    const pair = code >= 0xd800 && code <= 0xdbff && end + 1 < text.length;
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + width > maxBytes) break;
    bytes += width;
    end += pair ? 2 : 1;
  }
  return { page: text.slice(offset, end), end };
}

/** `text` from `offset`, as much as fits, said to be a part when it is not the whole. */
export function pageFrom(text: string, offset: number, maxBytes: number): string {
  if (offset > text.length) {
    throw new ToolFailure(`the offset is past the end: the text has ${text.length} characters`);
  }
  const { page, end } = pageOf(text, offset, maxBytes - HEADER_BYTES);
  if (offset === 0 && end === text.length) return page;
  const more = end < text.length ? `; call again with offset ${end} for what follows` : "";
  return `[characters ${offset} to ${end} of ${text.length}${more}]\n${page}`;
}

/** Lines `from` to `to` (1-based, inclusive) of `text`, each after its number, as many as fit. */
export function numberedLines(text: string, from: number, to: number, maxBytes: number): string {
  const lines = linesOf(text);
  if (from > lines.length) {
    throw new ToolFailure(`there is no line ${from}: the text has ${lines.length} lines`);
  }
  if (to < from) throw new ToolFailure(`the last line asked for, ${to}, comes before the first`);
  const last = Math.min(to, lines.length);
  const shown: string[] = [];
  let bytes = HEADER_BYTES;
  for (let number = from; number <= last; number++) {
    const line = `${number}: ${clipped(lines[number - 1] ?? "", 0)}\n`;
    bytes += Buffer.byteLength(line);
    if (bytes > maxBytes) break;
    shown.push(line);
  }
  const end = from + shown.length - 1;
  const more = end < last ? `; call again from line ${end + 1} for what follows` : "";
  return `[lines ${from} to ${end} of ${lines.length}${more}]\n${shown.join("")}`;
}

/** The numbered lines of `text` containing `needle` (a literal text), as many as fit. */
export function matchingLines(
  text: string,
  needle: string,
  { ignoreCase = false, maxBytes }: { ignoreCase?: boolean; maxBytes: number },
): string {
  const wanted = ignoreCase ? needle.toLowerCase() : needle;
  const shown: string[] = [];
  let bytes = HEADER_BYTES;
  let matches = 0;
  let full = false;
  linesOf(text).forEach((line, index) => {
    const at = (ignoreCase ? line.toLowerCase() : line).indexOf(wanted);
    if (at < 0) return;
    matches++;
    if (full) return;
    const entry = `${index + 1}: ${clipped(line, at)}\n`;
    bytes += Buffer.byteLength(entry);
    if (bytes > maxBytes) full = true;
    else shown.push(entry);
  });
  if (matches === 0) return "No line contains that text.";
  const part = shown.length < matches ? `; the first ${shown.length} are shown` : "";
  return `[${matches} ${matches === 1 ? "line contains" : "lines contain"} it${part}]\n${shown.join("")}`;
}

function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

/** `line`, or the part of it around position `at` when it is too long to show whole. */
function clipped(line: string, at: number): string {
  if (line.length <= MAX_LINE_CHARACTERS) return line;
  const start = Math.max(0, Math.min(at - CONTEXT_BEFORE_MATCH, line.length - MAX_LINE_CHARACTERS));
  const end = start + MAX_LINE_CHARACTERS;
  return `${start > 0 ? "…" : ""}${line.slice(start, end)}${end < line.length ? "…" : ""}`;
}
