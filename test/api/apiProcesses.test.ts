// `npm run api` with API_PROCESSES=2, over NATS: one port served by two processes (the access log
// names the process of each request), their metrics summed on the primary's port, a killed process
// replaced while the other goes on answering, and SIGTERM to the primary stopping them all in order.
import { request } from "node:http";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findFreePort } from "../../devStack/findFreePort.ts";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { createApiKey } from "../support/http.ts";
import { captureOutput } from "../support/processOutput.ts";
import { metricValue, parsePrometheusText } from "../support/prometheusText.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ nats: true, ponder: true });
/** What this API's processes print, the primary's lines among them. */
const output = captureOutput();
let api: Api;
let apiKey: string;
let metricsUrl: string;

/** Polls `read` until it returns a value, failing after `timeoutMs`. */
async function eventually<T>(read: () => T | undefined, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pids of the processes that have said they listen, in the order they did. */
const listeningPids = (of = output) =>
  of
    .entries()
    .filter((entry) => entry.message === "listening")
    .map((entry) => entry.pid as number);

/**
 * GET /v1/listings on a connection of its own (none kept alive), which the primary hands to the next
 * process in turn. Resolves with the status and the request id it was answered with.
 */
function getOnNewConnection(): Promise<{ status: number; requestId: string }> {
  return new Promise((resolve, reject) => {
    const options = {
      agent: false,
      timeout: 10_000,
      headers: { authorization: `Bearer ${apiKey}` },
    };
    const sent = request(`${api.url}/v1/listings`, options, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          requestId: String(response.headers["x-request-id"]),
        }),
      );
    });
    sent.on("timeout", () => sent.destroy(new Error("no answer within 10 s")));
    sent.on("error", reject);
    sent.end();
  });
}

/** The pid of the process that logged the request `requestId`, once its line is out. */
function servedBy(requestId: string): Promise<number> {
  return eventually(
    () =>
      output
        .entries()
        .find((entry) => entry.message === "request" && entry.request_id === requestId)?.pid as
        | number
        | undefined,
    `the access log line of ${requestId}`,
  );
}

/** `count` requests one after another, each on a new connection: their statuses and processes. */
async function serve(count: number): Promise<{ statuses: number[]; pids: Set<number> }> {
  const statuses: number[] = [];
  const pids = new Set<number>();
  for (let i = 0; i < count; i++) {
    const { status, requestId } = await getOnNewConnection();
    statuses.push(status);
    pids.add(await servedBy(requestId));
  }
  return { statuses, pids };
}

const allOk = (count: number) => Array.from({ length: count }, () => 200);

beforeAll(async () => {
  const metricsPort = await findFreePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  api = await stack().addApi(
    { API_PROCESSES: "2", METRICS_PORT: String(metricsPort) },
    output.onOutput,
  );
  // The API answers once one process listens; the other may still be starting.
  await eventually(
    () => (listeningPids().length >= 2 ? true : undefined),
    "two processes listening",
  );
  ({ key: apiKey } = await createApiKey(api.url, devAccount(5), "api-processes"));
}, 120_000);

/** The exits the primary saw and answered by starting another process. */
const unexpectedExits = () =>
  output.entries().filter((entry) => entry.message === "an API process exited: starting another");

describe("API_PROCESSES=2", () => {
  // What the processes printed (a crash's stack among it) is the only account of a failure here.
  beforeEach(({ onTestFailed }) => onTestFailed(() => console.error(output.text())));

  it("serves one port from two processes, neither of them the primary", async () => {
    expect(unexpectedExits(), "no process exited before this test").toEqual([]);
    const { statuses, pids } = await serve(10);
    expect(statuses).toEqual(allOk(10));
    expect([...pids].sort()).toEqual([...listeningPids()].sort());
    expect(pids.has(api.pid)).toBe(false);
  });

  it("counts both processes' requests on the primary's metrics port, summed", async () => {
    const scrape = async () =>
      parsePrometheusText(
        await (await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) })).text(),
      );
    const listings = { method: "GET", route: "/v1/listings", status: "200" };
    const count = "marketplace_http_request_duration_seconds_count";
    const before = await scrape();
    const { statuses, pids } = await serve(10);
    expect(statuses).toEqual(allOk(10));
    expect(pids.size).toBe(2);
    const after = await scrape();
    expect(metricValue(after, count, listings) - metricValue(before, count, listings)).toBe(10);
  });

  it("goes on answering when a process is killed, and the primary starts another in its place", async () => {
    const [victim, survivor] = listeningPids() as [number, number];
    process.kill(victim, "SIGKILL");
    await eventually(
      () =>
        output
          .entries()
          .find(
            (entry) =>
              entry.message === "an API process exited: starting another" &&
              entry.exited_pid === victim &&
              entry.pid === api.pid,
          ),
      "the primary's notice of the killed process",
    );
    // Answered at once, by the survivor until its new sibling listens.
    const meanwhile = await serve(6);
    expect(meanwhile.statuses).toEqual(allOk(6));
    expect(meanwhile.pids.has(victim)).toBe(false);

    const replacement = await eventually(
      () => listeningPids().find((pid) => pid !== victim && pid !== survivor),
      "a new process listening",
    );
    const after = await serve(10);
    expect(after.statuses).toEqual(allOk(10));
    expect([...after.pids].sort()).toEqual([survivor, replacement].sort());
  });

  it("stops every process in order on SIGTERM to the primary, and starts none", async () => {
    const serving = listeningPids().filter((pid) => isAlive(pid));
    expect(serving).toHaveLength(2);
    process.kill(api.pid, "SIGTERM");
    // 0 only if each process stopped in order: answered what it had, closed its connections, exited 0.
    expect(await api.exited).toBe(0);
    expect(serving.filter((pid) => isAlive(pid))).toEqual([]);
    // Nothing of the API's process group is left, so no process was started during the stop.
    expect(isAlive(-api.pid)).toBe(false);
  });

  it("stops every process in order when the whole process group gets SIGTERM, as a terminal's Ctrl-C or the dev stack sends it", async () => {
    const groupOutput = captureOutput();
    const group = await stack().addApi({ API_PROCESSES: "2" }, groupOutput.onOutput);
    await eventually(
      () => (listeningPids(groupOutput).length >= 2 ? true : undefined),
      "two processes listening",
    );
    // Each process gets the signal and the primary's request to stop: neither cuts the other short.
    await group.stop();
    expect(await group.exited).toBe(0);
  }, 120_000);
});

/** Whether a process (or, negative, a process group) exists. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}
