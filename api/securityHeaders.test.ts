import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../test/support/testApp.ts";
import { useStack } from "../test/support/useStack.ts";

const stack = useStack({ chain: true, postgres: true });

describe("finding: HTTP hardening (security headers)", () => {
  it("tell browsers not to sniff types or pass referrers, on answers and errors alike", async () => {
    const api = createTestApp(stack());
    for (const path of ["/v1/auth/challenge?wallet=0x01", "/v1/listings", "/nowhere"]) {
      const response = await api.app.request(path);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(response.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("ride on successful answers, pages and preflights too", async () => {
    const api = createTestApp(stack());
    const answers = [
      await api.app.request("/v1/openapi.json"),
      await api.app.request("/docs"),
      await api.app.request("/v1/execute", {
        method: "OPTIONS",
        headers: { origin: "https://dapp.example", "access-control-request-method": "POST" },
      }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBeLessThan(300);
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("x-frame-options")).toBe("SAMEORIGIN");
      expect(answer.headers.get("cross-origin-opener-policy")).toBe("same-origin");
      expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  it("arrive over HTTP as the Node server writes them, beside each answer's own headers", async () => {
    const api = createTestApp(stack());
    const server = serve({ fetch: api.app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((listening) => server.once("listening", listening));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const answers = await Promise.all([
        fetch(`${base}/v1/openapi.json`),
        fetch(`${base}/v1/listings`),
        fetch(`${base}/nowhere`),
        fetch(`${base}/v1/execute`, {
          method: "OPTIONS",
          headers: { origin: "https://dapp.example", "access-control-request-method": "POST" },
        }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 204]);
      for (const answer of answers) {
        expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
        expect(answer.headers.get("x-frame-options")).toBe("SAMEORIGIN");
        expect(answer.headers.get("access-control-allow-origin")).toBe("*");
      }
      const [document, refused, missing] = answers;
      expect(document?.headers.get("content-type")).toMatch(/^application\/json/);
      for (const answer of [document, refused, missing]) {
        expect(answer?.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{24}$/);
        expect(answer?.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
      }
    } finally {
      await new Promise((closed) => server.close(closed));
    }
  });

  it("demand HTTPS on the live network", async () => {
    const live = createTestApp(stack(), { network: "live" });
    const response = await live.app.request("/v1/listings");
    expect(response.headers.get("strict-transport-security")).toBe(
      "max-age=63072000; includeSubDomains",
    );
  });
});

describe("calls from web pages of other origins", () => {
  it("are allowed with a bearer token and never with cookies; preflights need no token", async () => {
    const api = createTestApp(stack());
    const preflight = await api.app.request("/v1/execute", {
      method: "OPTIONS",
      headers: {
        origin: "https://dapp.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, idempotency-key",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "Authorization,Content-Type,Idempotency-Key,User-Agent,Mcp-Session-Id,Mcp-Protocol-Version",
    );
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();

    const refused = await api.app.request("/v1/listings", {
      headers: { origin: "https://dapp.example" },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("access-control-expose-headers")).toContain("Retry-After");
  });
});
