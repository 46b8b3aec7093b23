// Structured logs: one JSON object per line, written through pino's asynchronous destination. Nothing
// secret is passed in by design; `redact` is the second line of defence for anything that looks like
// a key, a token or a signature.
import { type DestinationStream, pino } from "pino";

export type LogFields = Record<string, unknown>;
export type Logger = {
  info: (message: string, fields?: LogFields) => void;
  warn: (message: string, fields?: LogFields) => void;
  error: (message: string, fields?: LogFields) => void;
};

const SECRET_PATTERNS = [
  /intl_(test|live)_[A-Za-z0-9]+/g,
  // A token starts only where a run of its characters starts, so a hostile `eyJeyJeyJ…` is scanned
  // once, not once per position: redaction stays linear in the text's length.
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
  /0x[0-9a-fA-F]{130,}/g,
  /whsec_[A-Za-z0-9+/]+=*/g,
];
/** What every pattern above starts with: a text holding none of these is left as it is, unscanned. */
const SECRET_PREFIXES = /intl_|eyJ|0x|whsec_/;
const SECRET_FIELD = /authorization|token|signature|secret|password|api_?key|prompt|credential/i;

export function redact(value: unknown, field = ""): unknown {
  if (SECRET_FIELD.test(field) && value !== undefined && value !== null) return "[redacted]";
  // JSON has no big integers: wei amounts and block numbers are written as decimal strings.
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") {
    if (!SECRET_PREFIXES.test(value)) return value;
    return SECRET_PATTERNS.reduce((text, pattern) => text.replace(pattern, "[redacted]"), value);
  }
  if (Array.isArray(value)) return value.map((item) => redact(item));
  if (value && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = redact(item, key);
    return copy;
  }
  return value;
}

/**
 * Standard output, written asynchronously and in batches: a request never waits on the write, and a
 * line waits at most `GATHER_MS`. Lines still buffered are written by `flushLogs`, and by pino itself
 * when the process exits (a crash included).
 */
let standardOutput: ReturnType<typeof pino.destination> | undefined;
/**
 * A write of at most PIPE_BUF bytes to a pipe is atomic, and each write holds whole lines: the lines
 * of processes sharing one standard output (an API cluster's) never interleave.
 */
const ATOMIC_WRITE_BYTES = 4096;
/** Lines waiting for a reader that has stopped reading are dropped past this, not held without bound. */
const BUFFERED_BYTES = 16 * 1024 * 1024;
/**
 * Lines are gathered until this many bytes wait, or `GATHER_MS` passed: a write per line (one per
 * request, for the access log) costs a busy process more than the line itself.
 */
const GATHERED_BYTES = 2048;
const GATHER_MS = 50;

function stdoutDestination() {
  standardOutput ??= pino.destination({
    dest: 1,
    sync: false,
    maxWrite: ATOMIC_WRITE_BYTES,
    maxLength: BUFFERED_BYTES,
    minLength: GATHERED_BYTES,
    periodicFlush: GATHER_MS,
  });
  return standardOutput;
}

/** Writes out every line still buffered for standard output, before an orderly exit. */
export function flushLogs(): void {
  standardOutput?.flushSync();
}

let lastMillisecond = 0;
let lastTime = "";

/** The ISO time of a line, formatted once per millisecond: a busy process writes many lines in each. */
function isoTimeOfThisMillisecond(): string {
  const now = Date.now();
  if (now !== lastMillisecond) {
    lastMillisecond = now;
    lastTime = new Date(now).toISOString();
  }
  return lastTime;
}

/**
 * A logger whose lines read `{"level","time","pid","component",...fields,"message"}`, written to
 * standard output, or synchronously to `write` (tests collect lines that way). Each line is one
 * `JSON.stringify` of its redacted fields: every field is a plain value once redacted.
 */
export function createLogger(component: string, write?: (line: string) => void): Logger {
  const destination: DestinationStream = write ? { write } : stdoutDestination();
  const origin = `,"pid":${process.pid},"component":${JSON.stringify(component)}`;
  const emitter =
    (level: "info" | "warn" | "error") =>
    (message: string, fields: LogFields = {}) => {
      const body = JSON.stringify(redact(fields));
      const rest = body === "{}" ? "" : `,${body.slice(1, -1)}`;
      const time = isoTimeOfThisMillisecond();
      const text = JSON.stringify(redact(message));
      destination.write(
        `{"level":"${level}","time":"${time}"${origin}${rest},"message":${text}}\n`,
      );
    };
  return { info: emitter("info"), warn: emitter("warn"), error: emitter("error") };
}
