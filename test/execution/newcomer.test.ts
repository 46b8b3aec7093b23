// The README's "Run a task", on the stack as `npm start` composes it (scripts/start.ts): the API
// with its workers in-process, the demo catalogue seeded through the API, and the demo connected
// agent served over HTTPS with the dev CA of DATA_DIR, the declarative one on the vendor emulator
// answering with the demo auditor's findings. A newcomer buys each with `npm run demo:buy` and runs
// it the way the README's curl commands do.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { FIXED_VAULT, VULNERABLE_VAULT } from "../../scripts/demo/sampleVaults.ts";
import { startDemoCatalogue } from "../support/demoCatalogueOnStack.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true });
let api: Api;
let seed: () => Promise<string[]>;
let listed: string[];
let marketBrief: string;
let auditor: string;
let key: string;

beforeAll(async () => {
  const demo = await startDemoCatalogue(stack());
  ({ api, seed, listed } = demo);
  marketBrief = demo.listingId("Daily Market Brief");
  auditor = demo.listingId("Solidity Contract Auditor");
  return demo.stop;
});

/** `npm run -s demo:buy -- <listing>` against this stack, as `npm start`'s environment sets it. */
async function demoBuy(listing: string) {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ["scripts/demo/buy.ts", listing],
    {
      env: {
        ...process.env,
        RPC_URL: stack().anvil.rpcUrl,
        API_PORT: new URL(api.url).port,
        DATA_DIR: stack().dir,
        DEPLOYMENT_FILE: stack().deploymentFile,
      },
    },
  );
  return { stdout: stdout.trim(), stderr };
}

const execute = (
  path: string,
  body: object = {
    agent_id: marketBrief,
    task: "Brief me on today",
    input: { sector: "semiconductors" },
  },
) =>
  fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("a newcomer runs the demo's connected agent", () => {
  it("finds the demo listings named on every start, though they are listed once", async () => {
    expect(listed).toEqual([
      expect.stringMatching(/^Solidity Contract Auditor \(lst_[0-9a-f]{64}\)$/),
      expect.stringMatching(/^Daily Market Brief \(lst_[0-9a-f]{64}\)$/),
    ]);
    expect(await seed()).toEqual(listed);
  });

  it("buys Daily Market Brief with a dev account; the script prints only an API key", async () => {
    expect(marketBrief).toMatch(/^lst_/);
    const bought = await demoBuy(marketBrief);
    expect(bought.stderr).toContain("bought a 30-day subscription");
    expect(bought.stdout).toMatch(/^intl_test_\S+$/);
    key = bought.stdout;

    const again = await demoBuy(marketBrief);
    expect(again.stderr).toContain("already holds a valid subscription credential");
  });

  it("POST /v1/execute answers with the finished brief", async () => {
    const response = await execute("/v1/execute");
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({
      run_id: expect.stringMatching(/^run_/),
      agent_id: marketBrief,
      status: "completed",
      output: expect.stringContaining("semiconductors: the sector"),
      cost_wei: 0,
      duration_ms: expect.any(Number),
    });
  });

  it("POST /v1/execute/stream sends the brief word by word, then done", async () => {
    const response = await execute("/v1/execute/stream");
    expect(response.status).toBe(200);
    const events = eventsOf(await sseReader(response).rest());
    const deltas = events.filter((event) => event.event === "output");
    expect(deltas.length).toBeGreaterThan(10);
    const text = deltas.map((event) => (event.data as { delta: string }).delta).join("");
    expect(text).toContain("semiconductors: the sector");
    expect(events.at(-1)).toEqual({
      event: "done",
      data: {
        run_id: expect.stringMatching(/^run_/),
        status: "completed",
        cost_wei: 0,
        duration_ms: expect.any(Number),
      },
    });
  });
});

describe("a newcomer runs the demo's declarative agent", () => {
  const audit = (source: string) => ({
    agent_id: auditor,
    task: "Audit this contract",
    input: { source },
  });

  it("buys tasks of Solidity Contract Auditor; it finds the reentrancy in a vault, on its lines", async () => {
    const bought = await demoBuy(auditor);
    expect(bought.stdout).toMatch(/^intl_test_\S+$/);
    key = bought.stdout;

    const response = await execute("/v1/execute", audit(VULNERABLE_VAULT));
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({
      run_id: expect.stringMatching(/^run_/),
      agent_id: auditor,
      status: "completed",
      output: {
        findings: [
          expect.stringMatching(
            /^High: reentrancy in withdraw\(\): line 14 makes an external call .* before line 16 updates balances/,
          ),
        ],
      },
      cost_wei: 500_000_000_000_000,
      duration_ms: expect.any(Number),
    });
  });

  it("streams its answer on the fixed vault, which has no finding, in deltas that make up the output", async () => {
    const response = await execute("/v1/execute/stream", audit(FIXED_VAULT));
    const events = eventsOf(await sseReader(response).rest());
    const text = events
      .filter((event) => event.event === "output")
      .map((event) => (event.data as { delta: string }).delta)
      .join("");
    expect(JSON.parse(text)).toEqual({
      findings: [expect.stringMatching(/^Info: no reentrancy found/)],
    });
    expect(events.at(-1)).toMatchObject({ event: "done", data: { status: "completed" } });
  });
});
