import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context.ts";
import type { DashboardSite } from "./dashboardSite.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/** Paths the API answers itself; every other GET is the dashboard's. */
const API_PATHS = /^\/(v1|docs)(\/|$)/;

type File = { body: Uint8Array; type: string };

/** Every file of the build by URL path: only these are served, so no path can reach outside it. */
function readBuild(dir: string): Map<string, File> {
  const files = new Map<string, File>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const urlPath = `/${relative(dir, path).split(sep).join("/")}`;
    files.set(urlPath, {
      body: readFileSync(path),
      type: TYPES[extname(path)] ?? "application/octet-stream",
    });
  }
  return files;
}

/** Scripts and styles from the page's origin only; calls to it and to the chain's RPC endpoint. */
function contentSecurityPolicy(rpcUrl: string | null) {
  const connect = ["'self'", ...(rpcUrl ? [new URL(rpcUrl).origin] : [])].join(" ");
  return `default-src 'self'; connect-src ${connect}; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/**
 * The built dashboard on the API's origin: its files, its config at `/dashboard/config.json`, and
 * `index.html` for any other path outside `/v1` and `/docs` (the dashboard routes in the browser).
 * The build is read at the first request that finds it, then kept in memory.
 */
export function serveDashboard(site: DashboardSite) {
  const config = JSON.stringify(site.config);
  const csp = contentSecurityPolicy(site.config.rpc_url);
  let build: Map<string, File> | undefined;

  return createMiddleware<AppEnv>(async (c, next) => {
    const method = c.req.method;
    if ((method !== "GET" && method !== "HEAD") || API_PATHS.test(c.req.path)) return next();
    if (c.req.path === "/dashboard/config.json") {
      return c.body(config, 200, {
        "Content-Type": "application/json",
        "Cache-Control": "no-cache",
      });
    }
    try {
      build ??= readBuild(site.dir);
    } catch {
      return c.text("The dashboard is not built: npm run build --workspace dashboard", 404);
    }
    const asset = build.get(c.req.path);
    if (asset && c.req.path !== "/index.html") {
      // Vite names assets by their content's hash: they never change under a name.
      const immutable = c.req.path.startsWith("/assets/");
      return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, {
        "Content-Type": asset.type,
        "Cache-Control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      });
    }
    const page = build.get("/index.html");
    if (!page) return c.text("The dashboard build has no index.html", 404);
    return c.body(page.body as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": page.type,
      "Cache-Control": "no-cache",
      "Content-Security-Policy": csp,
    });
  });
}
