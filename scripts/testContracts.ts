// The forge suite as `npm test` runs it: the CI profile, then the gas snapshot check. The fuzz and
// invariant inputs come from a seed of their own each run, printed first: FOUNDRY_FUZZ_SEED=<seed>
// runs the same inputs again, to replay a failure.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

const contracts = fileURLToPath(new URL("../contracts", import.meta.url));
const seed = process.env.FOUNDRY_FUZZ_SEED || `0x${randomBytes(8).toString("hex")}`;
console.log(`fuzz seed ${seed} (FOUNDRY_FUZZ_SEED=${seed} npm run test:contracts replays it)`);

function forge(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync("bin/forge", args, {
    cwd: contracts,
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    console.error(`forge ${args[0]} failed; fuzz seed ${seed}`);
    process.exit(result.status ?? 1);
  }
}

forge(["test", "--no-match-contract", "GasTest", "--fuzz-seed", seed], { FOUNDRY_PROFILE: "ci" });
forge(["snapshot", "--isolate", "--match-contract", "GasTest", "--check"]);
