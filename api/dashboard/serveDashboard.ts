import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import type { Context } from "hono";
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

/** Paths whose unknown GETs stay the API's 404s. */
const API_PATHS = /^\/(v1|docs|ipfs)(\/|$)/;

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
 * The built dashboard on the API's origin. `file` answers its files and its config at
 * `/dashboard/config.json`, ahead of authentication and rate limits (they are public and cost
 * nothing). `page` answers `index.html` for a GET the API has no route for, outside `/v1` and `/docs`
 * (the dashboard routes in the browser), so no route of the API, present or future, is shadowed.
 * The build is read at the first request that finds it complete, then kept in memory.
 */
export function serveDashboard(site: DashboardSite) {
  const config = JSON.stringify(site.config);
  const csp = contentSecurityPolicy(site.config.rpc_url);
  let build: Map<string, File> | undefined;
  /** The build once it is complete; until then it is looked for again at each request. */
  const readOnce = () => {
    if (build?.has("/index.html")) return build;
    try {
      build = readBuild(site.dir);
    } catch {
      build = undefined;
    }
    return build;
  };
  const isRead = (c: Context) => c.req.method === "GET" || c.req.method === "HEAD";

  const file = (c: Context): Response | undefined => {
    if (!isRead(c) || API_PATHS.test(c.req.path)) return undefined;
    if (c.req.path === "/dashboard/config.json") {
      return c.body(config, 200, {
        "Content-Type": "application/json",
        "Cache-Control": "no-cache",
      });
    }
    const asset = c.req.path === "/index.html" ? undefined : readOnce()?.get(c.req.path);
    if (!asset) return undefined;
    // Vite names assets by their content's hash: they never change under a name.
    const immutable = c.req.path.startsWith("/assets/");
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": asset.type,
      "Cache-Control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
    });
  };

  const page = (c: Context): Response | undefined => {
    if (!isRead(c) || API_PATHS.test(c.req.path)) return undefined;
    const index = readOnce()?.get("/index.html");
    if (!index)
      return c.text("The dashboard is not built: npm run build --workspace dashboard", 404);
    return c.body(index.body as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": index.type,
      "Cache-Control": "no-cache",
      "Content-Security-Policy": csp,
    });
  };

  return { file, page };
}
