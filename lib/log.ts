// Structured logs: one JSON object per line. Nothing secret is passed in by design; `redact` is the
// second line of defence for anything that looks like a key, a token or a signature.

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
const SECRET_FIELD = /authorization|token|signature|secret|password|api_?key|prompt|credential/i;

export function redact(value: unknown, field = ""): unknown {
  if (SECRET_FIELD.test(field) && value !== undefined && value !== null) return "[redacted]";
  if (typeof value === "string") {
    return SECRET_PATTERNS.reduce((text, pattern) => text.replace(pattern, "[redacted]"), value);
  }
  if (Array.isArray(value)) return value.map((item) => redact(item));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redact(item, key)]));
  }
  return value;
}

export function createLogger(
  component: string,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const emit = (level: string, message: string, fields: LogFields = {}) => {
    const entry = { time: new Date().toISOString(), level, component, message, ...fields };
    write(`${JSON.stringify(redact(entry))}\n`);
  };
  return {
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
  };
}
