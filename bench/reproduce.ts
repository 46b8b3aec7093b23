/** The command that repeats this run: `script` with those of `knobs` that are set. */
export function reproduce(script: string, knobs: string[]): string {
  const set = knobs.filter((name) => process.env[name] !== undefined);
  const env = set.map((name) => `${name}=${process.env[name]} `).join("");
  return `Reproduce: ${env}npm run ${script}`;
}
