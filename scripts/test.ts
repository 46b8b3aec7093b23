// `npm test`: the checks, the forge suite, vitest, then the scale tests, one after another, stopping
// at the first that fails. The run ends with how long each phase took, passed or not; vitest's own
// report ends with its slowest files (test/support/slowestFilesReporter.ts).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const PHASES = ["check", "test:contracts", "test:ts", "test:scale"];

// Every Node process of the run (vitest's workers, and the API, worker and Ponder processes the tests
// start by the hundred) keeps the bytecode of the modules it compiles here, and the next loads it.
const compileCache = fileURLToPath(new URL("../node_modules/.cache/node-compile", import.meta.url));

/** Runs `npm run <script>` with its output on this terminal; resolves with its exit code. */
function run(script: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", script], {
      stdio: "inherit",
      env: { NODE_COMPILE_CACHE: compileCache, ...process.env },
    });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const timings: string[] = [];
let failed = false;
const started = performance.now();
for (const phase of PHASES) {
  const phaseStarted = performance.now();
  const code = await run(phase);
  const seconds = (performance.now() - phaseStarted) / 1000;
  timings.push(`${seconds.toFixed(1).padStart(7)} s  ${phase}${code === 0 ? "" : "  (failed)"}`);
  if (code !== 0) {
    failed = true;
    break;
  }
}
const total = ((performance.now() - started) / 1000).toFixed(1).padStart(7);
console.log(`\nnpm test phases:\n${timings.join("\n")}\n${total} s  in all\n`);
process.exitCode = failed ? 1 : 0;
