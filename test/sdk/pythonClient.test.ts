// The Python client (sdk-python/, package service_sdk) against the real stack: its own unittest
// suite, given a renter holding a per-task balance and an API key on a listing of the behaving
// agent, a stranger's JWT, and an API process with a low rate limit; the suite also builds the
// package. Its output is shown when it fails.
import { execFile } from "node:child_process";
import { parseEther } from "viem";
import { expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { createApiKey, signIn } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";

const PRICE = parseEther("0.01");
const sdkPython = new URL("../../sdk-python", import.meta.url).pathname;
/** Three requests a minute per caller. */
let rateLimitedApi: Api;
const { stack, listing, addRenter } = usePerTaskAgentOnStack({
  name: "python-summariser",
  price: PRICE,
  startProcesses: async () => {
    [rateLimitedApi] = await Promise.all([
      stack().addApi({ RATE_LIMIT_PER_MINUTE: "3" }),
      stack().addWorker(),
    ]);
  },
});

/** Runs a command; answers with its exit code and everything it wrote. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(command, args, { ...options, timeout: 150_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) || 1 : 0, output: `${stdout}${stderr}` });
    });
  });
}

it("passes its unittest suite: API key, search, get, verify, execute, a max cost, async runs and their history, stream, each typed error, the build", async () => {
  const renter = await addRenter(PRICE * 6n);
  const { key } = await createApiKey(stack().api.url, renter.account, "python");
  const { code, output } = await run(
    "python3",
    ["-m", "unittest", "discover", "-s", "tests", "-v"],
    {
      cwd: sdkPython,
      env: {
        ...process.env,
        PYTHONDONTWRITEBYTECODE: "1",
        SERVICE_API_URL: stack().api.url,
        SERVICE_RATE_LIMITED_API_URL: rateLimitedApi.url,
        SERVICE_API_KEY: key,
        SERVICE_STRANGER_TOKEN: await signIn(stack().api.url, devAccount(7)),
        SERVICE_LISTING_ID: listing().agentId,
        SERVICE_PRICE_WEI: String(PRICE),
      },
    },
  );
  expect(code, output).toBe(0);
  // Python 3.11 exits 0 when it found no tests at all.
  expect(Number(/\nRan (\d+) tests? in/.exec(output)?.[1]), output).toBeGreaterThanOrEqual(15);
}, 180_000);
