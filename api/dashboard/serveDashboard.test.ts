import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../process/context.ts";
import type { DashboardSite } from "./dashboardSite.ts";
import { serveDashboard } from "./serveDashboard.ts";

function builtDashboard(): string {
  const dir = mkdtempSync(join(tmpdir(), "dashboard-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>Dashboard</title>");
  writeFileSync(join(dir, "assets", "index-abc.js"), "console.log(1)");
  return dir;
}

const config: DashboardSite["config"] = {
  chain_id: 31337,
  rpc_url: "http://127.0.0.1:8545",
  marketplace: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  dev_account: null,
};

/** The dashboard around a stand-in for the API's routes: `/v1/listings` and `/docs`. */
function appServing(dir: string) {
  const dashboard = serveDashboard({ dir, config });
  const app = new Hono<AppEnv>().use(async (c, next) => dashboard.file(c) ?? next());
  app.get("/v1/listings", (c) => c.text("the API"));
  app.get("/docs", (c) => c.text("the API"));
  app.notFound((c) => dashboard.page(c) ?? c.text("the API's 404", 404));
  return app;
}

describe("the dashboard on the API's origin", () => {
  const app = appServing(builtDashboard());

  it("serves its page with a content security policy, its assets as immutable, its config", async () => {
    const page = await app.request("/");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<title>Dashboard</title>");
    expect(page.headers.get("content-security-policy")).toContain(
      "connect-src 'self' http://127.0.0.1:8545",
    );

    const script = await app.request("/assets/index-abc.js");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toContain("immutable");

    expect(await (await app.request("/dashboard/config.json")).json()).toEqual(config);
  });

  it("answers the page for any other path, so the dashboard's own routes load", async () => {
    for (const path of ["/listings/lst_00", "/api-keys", "/assets/../../etc/passwd", "/%2e%2e/x"]) {
      const response = await app.request(path);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toContain("<title>Dashboard</title>");
    }
  });

  it("leaves the API's routes to it, and its 404s under /v1 and /docs and for anything but GET", async () => {
    for (const path of ["/v1/listings", "/docs"]) {
      expect(await (await app.request(path)).text(), path).toBe("the API");
    }
    for (const [method, path] of [
      ["GET", "/v1/nothing"],
      ["GET", "/docs/nope.js"],
      ["POST", "/"],
      ["DELETE", "/api-keys"],
    ] as const) {
      expect(await (await app.request(path, { method })).text(), path).toBe("the API's 404");
    }
  });

  it("says how to build it until it is built, then serves it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dashboard-"));
    const app = appServing(dir);
    const response = await app.request("/");
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("npm run build --workspace dashboard");

    writeFileSync(join(dir, "index.html"), "<!doctype html><title>Dashboard</title>");
    expect(await (await app.request("/")).text()).toContain("<title>Dashboard</title>");
  });
});
