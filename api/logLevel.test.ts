// LOG_LEVEL as a process reads it: `debug` adds lines (here, each readiness report's), `info` is the
// default, and `warn` leaves out the line each request answered writes.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ENV_FIELDS } from "../lib/env.ts";
import { healthRoutes } from "../lib/health/healthRoutes.ts";
import { createReadiness } from "../lib/health/readiness.ts";
import { createLogger, logLevelOf } from "../lib/log.ts";
import { everyAnswer } from "./middleware/everyAnswer.ts";
import type { ApiDeps, AppEnv } from "./process/context.ts";

/** The messages an API answering a readiness probe and one request writes at `LOG_LEVEL`. */
async function linesAt(level: string | undefined): Promise<{ level: string; message: string }[]> {
  const lines: string[] = [];
  const log = createLogger("api", (line) => lines.push(line), logLevelOf({ LOG_LEVEL: level }));
  const readiness = createReadiness({ postgres: async () => {} }, log.child("readiness"));
  const app = new Hono<AppEnv>()
    .route("/", healthRoutes(readiness))
    .use(everyAnswer({ log, settings: { network: "test" } } as ApiDeps))
    .get("/v1/ping", (c) => c.text("pong"));
  expect((await app.request("/readyz")).status).toBe(200);
  expect((await app.request("/v1/ping")).status).toBe(200);
  return lines.map((line) => JSON.parse(line)).map(({ level, message }) => ({ level, message }));
}

describe("LOG_LEVEL", () => {
  it("writes debug lines at debug, each request's line from info, and neither at warn", async () => {
    expect(await linesAt("debug")).toEqual([
      { level: "debug", message: "readiness checked" },
      { level: "info", message: "request" },
    ]);
    expect(await linesAt(undefined)).toEqual([{ level: "info", message: "request" }]);
    expect(await linesAt("info")).toEqual([{ level: "info", message: "request" }]);
    expect(await linesAt("warn")).toEqual([]);
  });

  it("names each line's component, a child's after its parent's", () => {
    const lines: string[] = [];
    createLogger("worker", (line) => lines.push(line), "info")
      .child("settlement")
      .warn("slow", { token: "secret" });
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({
      component: "worker.settlement",
      token: "[redacted]",
      message: "slow",
    });
  });

  it("stops a process on a level it does not know", () => {
    expect(ENV_FIELDS.LOG_LEVEL.safeParse("verbose").success).toBe(false);
  });
});
