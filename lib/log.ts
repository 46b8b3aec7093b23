// Structured logs: one JSON object per line, written by pino at the level LOG_LEVEL sets, through its
// asynchronous destination. Nothing secret is passed in by design; `redact` is the second line of
// defence for anything that looks like a key, a token or a signature.
import { type DestinationStream, type Logger as PinoLogger, pino } from "pino";

export type LogFields = Record<string, unknown>;
type Write = (message: string, fields?: LogFields) => void;
export type Logger = {
  /** What helps find a fault, too much for every day: written with LOG_LEVEL=debug only. */
  debug: Write;
  info: Write;
  warn: Write;
  error: Write;
  /** A logger for a part of this one's component, whose lines name `component.part`. */
  child: (part: string) => Logger;
};

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Lines below `info` are left out unless LOG_LEVEL asks for them. */
const DEFAULT_LEVEL: LogLevel = "info";

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

/** LOG_LEVEL, as the process's environment parse checked it; an unknown level is the default. */
export function logLevelOf(source: NodeJS.ProcessEnv = process.env): LogLevel {
  const level = source.LOG_LEVEL;
  return (LOG_LEVELS as readonly string[]).includes(level ?? "")
    ? (level as LogLevel)
    : DEFAULT_LEVEL;
}

/** One pino logger on standard output per level: each component's is a child of it. */
const roots = new Map<string, PinoLogger>();

function rootLogger(destination: DestinationStream, level: LogLevel): PinoLogger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      messageKey: "message",
      timestamp: () => `,"time":"${isoTimeOfThisMillisecond()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => redact(fields) as LogFields,
      },
    },
    destination,
  );
}

function wrap(root: PinoLogger, component: string): Logger {
  const logger = root.child({ component });
  const at =
    (level: "debug" | "info" | "warn" | "error"): Write =>
    (message, fields = {}) => {
      if (logger.isLevelEnabled(level)) logger[level](fields, redact(message) as string);
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (part) => wrap(root, `${component}.${part}`),
  };
}

/**
 * A logger whose lines read `{"level","time","pid","component",...fields,"message"}`, written to
 * standard output, or synchronously to `write` (tests collect lines that way), from `level` up
 * (default LOG_LEVEL's). Fields and message are redacted before they are written.
 */
export function createLogger(
  component: string,
  write?: (line: string) => void,
  level: LogLevel = logLevelOf(),
): Logger {
  if (write) return wrap(rootLogger({ write }, level), component);
  let root = roots.get(level);
  if (!root) {
    root = rootLogger(stdoutDestination(), level);
    roots.set(level, root);
  }
  return wrap(root, component);
}
