import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../lib/log.ts";
import type { ApiDeps, AppEnv } from "../process/context.ts";
import { logAccess, loggedPath } from "./accessLog.ts";

const signature = `0x${randomBytes(65).toString("hex")}`;
const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIweDAxIn0.${randomBytes(32).toString("base64url")}`;
const apiKey = `intl_test_${randomBytes(32).toString("base64url").replace(/[-_]/g, "A").slice(0, 43)}`;

/** `/v1/listings/` padded so that `secret` starts `before` characters ahead of the 512th. */
function straddling(secret: string, before: number) {
  return `/v1/listings/${"a".repeat(512 - before - "/v1/listings/".length)}/${secret}`;
}

/** Every 8-character run of `secret` (past its well-known prefix) that `text` still holds. */
function fragmentsOf(secret: string, text: string): string[] {
  const body = secret.replace(/^(0x|eyJ|intl_test_)/, "");
  const runs = Array.from({ length: body.length - 7 }, (_, i) => body.slice(i, i + 8));
  return runs.filter((run) => text.includes(run));
}

describe("finding: a secret straddling the logged path's cut", () => {
  it("leaves no fragment of a signature, token or API key cut at the 512th character", () => {
    for (const secret of [signature, jwt, apiKey]) {
      for (const before of [1, 8, Math.floor(secret.length / 2), secret.length - 1]) {
        const logged = loggedPath(straddling(secret, before));
        expect({ secret, before, fragments: fragmentsOf(secret, logged) }).toEqual({
          secret,
          before,
          fragments: [],
        });
        expect({ secret, logged }).toEqual({
          secret,
          logged: `${straddling("[redacted]", before).slice(0, 512)}…`,
        });
      }
    }
  });

  it("keeps a short path as it is and cuts a long one at 512 characters, marked", () => {
    expect(loggedPath("/v1/listings/lst_1")).toBe("/v1/listings/lst_1");
    const long = `/v1/listings/${"b".repeat(600)}`;
    expect(loggedPath(long)).toBe(`${long.slice(0, 512)}…`);
    expect(loggedPath(`/v1/listings/${signature}${"z".repeat(600)}`)).toBe(
      `/v1/listings/[redacted]${"z".repeat(512 - "/v1/listings/[redacted]".length)}…`,
    );
  });

  it("is what the request line of the access log shows", async () => {
    const lines: string[] = [];
    const app = new Hono<AppEnv>()
      .use(async (c, next) => {
        c.set("deps", { log: createLogger("api", (line) => lines.push(line)) } as ApiDeps);
        c.set("requestId", "req_test");
        await next();
        logAccess(c, performance.now());
      })
      .get("*", (c) => c.text("not found", 404));
    const path = straddling(signature, 30);
    expect((await app.request(path)).status).toBe(404);
    const entry = JSON.parse(lines[0] ?? "{}");
    expect(entry).toMatchObject({ message: "request", path: loggedPath(path), status: 404 });
    expect(fragmentsOf(signature, lines.join(""))).toEqual([]);
  });
});
