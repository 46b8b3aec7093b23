// A strict parser of the Prometheus text exposition format (0.0.4): every line is a `# HELP`, a
// `# TYPE`, another comment, a blank or a sample; anything else, a sample of a family with no
// `# TYPE` before it, a repeated label or a value that is not a number is an error naming its line.

export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; type: string; help: string; samples: Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
/** What a family's samples may add to its name, by type. */
const SUFFIXES: Record<string, string[]> = {
  counter: ["", "_total"],
  gauge: [""],
  untyped: [""],
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  text.split("\n").forEach((line, index) => {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line === "") return;
    if (line.startsWith("#")) {
      const [, keyword, name, rest] = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line) ?? [];
      if (!keyword || !name) return;
      if (!NAME.test(name)) fail("a bad metric name");
      const family = families.get(name) ?? { name, type: "", help: "", samples: [] };
      families.set(name, family);
      if (keyword === "HELP") family.help = unescaped(rest ?? "", fail, false);
      else {
        if (family.type || family.samples.length > 0) fail("a TYPE after samples or twice");
        if (!TYPES.has(rest ?? "")) fail("an unknown type");
        family.type = rest ?? "";
      }
      return;
    }
    const sample = parseSample(line, fail);
    const family = [...families.values()].find(
      ({ name, type }) =>
        type !== "" && SUFFIXES[type]?.some((suffix) => `${name}${suffix}` === sample.name),
    );
    if (!family) fail("a sample of no declared family");
    family?.samples.push(sample);
  });
  return families;
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? fail("no metric name");
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === "{") {
    at++;
    while (line[at] !== "}") {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at)) ?? fail("a bad label");
      const labelName = label[1] ?? "";
      if (!LABEL_NAME.test(labelName) || labelName in labels) fail("a bad or repeated label");
      at += label[0].length;
      let raw = "";
      while (line[at] !== '"') {
        if (at >= line.length) fail("an unterminated label value");
        if (line[at] === "\\") raw += line[at++];
        raw += line[at++];
      }
      labels[labelName] = unescaped(raw, fail, true);
      at++;
      if (line[at] === ",") at++;
      else if (line[at] !== "}") fail("labels not separated by commas");
    }
    at++;
  }
  const [value, timestamp, ...extra] = line.slice(at).trim().split(/\s+/);
  if (line[at] !== " " || value === undefined || extra.length > 0) fail("a bad value");
  if (timestamp !== undefined && !/^-?\d+$/.test(timestamp)) fail("a bad timestamp");
  return { name, labels, value: number(value ?? "", fail) };
}

function number(text: string, fail: (why: string) => never): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) fail("a value that is not a number");
  return Number(text);
}

/** `\\` and `\n` in help text; `\"` too in a label value. Any other escape is an error. */
function unescaped(text: string, fail: (why: string) => never, quoted: boolean): string {
  return text.replace(/\\(.?)/g, (_, escaped: string) => {
    if (escaped === "\\") return "\\";
    if (escaped === "n") return "\n";
    if (escaped === '"' && quoted) return '"';
    return fail(`a bad escape \\${escaped}`);
  });
}

/** The samples of `name` (a family's, or its `_bucket`, `_sum`, `_count`) whose labels include `labels`. */
export function samplesOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): Sample[] {
  return [...families.values()]
    .flatMap((family) => family.samples)
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    );
}

/** The sum of the values of `samplesOf(…)`: 0 when there are none (a labelled counter not yet counted). */
export const metricValue = (families: Map<string, Family>, name: string, labels = {}): number =>
  samplesOf(families, name, labels).reduce((sum, { value }) => sum + value, 0);
