// The demo auditor's findings: a few line-based checks on Solidity source, enough for the demo
// "Solidity Contract Auditor" to answer with the line, severity and fix of a real bug in what it is
// given. No parser: it reads one statement a line, as small contracts are written.

/** An external call: `.call{value: …}(…)`, `.call(…)`, `.delegatecall(…)`, `.transfer(…)`, `.send(…)`. */
const EXTERNAL_CALL = /\.(?:call|delegatecall)\s*(?:\{[^}]*\})?\s*\(|\.(?:transfer|send)\s*\(/;
const FUNCTION_HEADER = /\bfunction\s+(\w+)\s*\(/;
const NOT_STATE =
  /^\s*(?:function|modifier|event|error|struct|enum|constructor|using|import|pragma|return)\b/;

type Line = { number: number; text: string; depth: number };

/** Findings for `source`, most severe first; one "Info:" finding when nothing is wrong. */
export function auditSolidity(source: string): string[] {
  const lines = linesOf(source);
  const stateVariables = stateVariablesOf(lines);
  const functions = functionsOf(lines);
  const findings = [
    ...functions.flatMap((fn) => reentrancyIn(fn, stateVariables)),
    ...lines.filter((line) => /tx\.origin\s*==|==\s*tx\.origin/.test(line.text)).map(txOrigin),
  ];
  if (findings.length > 0) return findings;
  if (functions.length === 0) return ["Info: no Solidity function found in the source given."];
  return [
    `Info: no reentrancy found in ${functions.length} function${functions.length === 1 ? "" : "s"}: every external call comes after the state updates it depends on.`,
  ];
}

/** Each line without its comments, and the brace depth it starts at. */
function linesOf(source: string): Line[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "));
  let depth = 0;
  return code.split("\n").map((raw, index) => {
    const text = raw.replace(/\/\/.*$/, "");
    const line = { number: index + 1, text, depth };
    for (const char of text) depth += char === "{" ? 1 : char === "}" ? -1 : 0;
    return line;
  });
}

/** The names declared at contract level (depth 1) that a function can write: not constants. */
function stateVariablesOf(lines: Line[]): string[] {
  return lines
    .filter(({ text, depth }) => depth === 1 && text.trim().endsWith(";") && !NOT_STATE.test(text))
    .filter(({ text }) => !/\b(?:constant|immutable)\b/.test(text))
    .map(({ text }) => /(\w+)\s*(?:=(?!>)[^;]*)?;\s*$/.exec(text)?.[1])
    .filter((name): name is string => name !== undefined);
}

type SolidityFunction = { name: string; header: string; body: Line[] };

/** Functions with a body: the header up to its `{`, then the lines inside the body. */
function functionsOf(lines: Line[]): SolidityFunction[] {
  const functions: SolidityFunction[] = [];
  for (const [index, line] of lines.entries()) {
    const name = FUNCTION_HEADER.exec(line.text)?.[1];
    if (name === undefined || line.depth !== 1) continue;
    const opens = lines.findIndex((next, at) => at >= index && /[{;]/.test(next.text));
    if (opens === -1 || !lines[opens]?.text.includes("{")) continue;
    const rest = lines.slice(opens + 1);
    const end = rest.findIndex((next) => next.depth <= 1);
    const header = lines.slice(index, opens + 1).map(({ text }) => text);
    functions.push({
      name,
      header: header.join(" "),
      body: end === -1 ? rest : rest.slice(0, end),
    });
  }
  return functions;
}

/** An external call followed, in the same function, by a write to contract state. */
function reentrancyIn(fn: SolidityFunction, stateVariables: string[]): string[] {
  if (/\bnonReentrant\b/.test(fn.header)) return [];
  const call = fn.body.find(({ text }) => EXTERNAL_CALL.test(text));
  if (!call) return [];
  for (const line of fn.body.filter(({ number }) => number > call.number)) {
    const written = stateVariables.find((name) => writes(line.text, name));
    if (written === undefined) continue;
    // The call itself, without what its result is assigned to.
    const snippet = call.text
      .trim()
      .replace(/;$/, "")
      .replace(/^(?:\([^)]*\)|[\w\s]+)\s*=\s*/, "");
    return [
      `High: reentrancy in ${fn.name}(): line ${call.number} makes an external call (${snippet}) before line ${line.number} updates ${written}, so the callee can call ${fn.name}() again while ${written} still holds the old value and be paid twice. Fix: update ${written} before the call (checks-effects-interactions), or guard ${fn.name}() with a nonReentrant modifier.`,
    ];
  }
  return [];
}

function writes(text: string, name: string): boolean {
  const assigned = new RegExp(`\\b${name}\\b(?:\\s*\\[[^\\]]*\\])*\\s*(?:[-+*/]?=(?!=)|\\+\\+|--)`);
  return assigned.test(text) || new RegExp(`\\bdelete\\s+${name}\\b`).test(text);
}

function txOrigin(line: Line): string {
  return `Medium: line ${line.number} authorises with tx.origin, so any contract the owner calls can act as the owner. Fix: compare msg.sender instead.`;
}
