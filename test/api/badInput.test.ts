// Oversized and slow input against a real API process, on a real socket: what the HTTP layer does before and
// around the routes. Malformed queries and bodies at each route are api/malformedInput.test.ts.
import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { HEADERS_TIMEOUT_MS } from "../../api/limits.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { keyExample, tokenExample } from "../support/malformedInput.ts";
import { postOversized } from "../support/postOversized.ts";
import { useStack } from "../support/useStack.ts";

// No indexer: nothing here reads a listing.
const stack = useStack({ api: 1, ponder: false });
let api: ReturnType<typeof http>;
let bearer: string;

beforeAll(async () => {
  bearer = await signIn(stack().api.url, devAccount(7));
  api = http(stack().api.url, { bearer });
});

describe("finding: HTTP hardening (oversized and slow input on a real socket)", () => {
  it("bodies of several megabytes are refused as too large, before they are read", async () => {
    const text = JSON.stringify({ ...tokenExample, ...keyExample, padding: "x".repeat(5_000_000) });
    for (const path of ["/v1/auth/token", "/v1/api-keys"]) {
      expectError(
        await postOversized(`${stack().api.url}${path}`, text, { bearer }),
        413,
        "payload_too_large",
      );
    }
  });

  it("(transport) a URL above Node's 16 KB header limit is refused before it reaches the API", async () => {
    // Recorded, not the API's doing: node:http answers 431 with no body for an oversized request
    // line. Only the status is asserted: the request must still not hang or crash the process.
    const oversized = await api.get(`/v1/listings?q=${"a".repeat(20_000)}`);
    expect(oversized.status).toBe(431);
    expectError(await api.get("/v1/listings?limit=0"), 400, "invalid_request");
  });

  it("a client that never finishes its headers is cut off, and the API keeps serving", async () => {
    const started = Date.now();
    const { port } = new URL(stack().api.url);
    const closed = await new Promise<string>((resolve, reject) => {
      let answer = "";
      const socket = connect(Number(port), "127.0.0.1", () => {
        // A request line and one header, then silence: a slowloris client.
        socket.write("GET /v1/listings HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      });
      socket.on("data", (chunk) => {
        answer += chunk.toString();
      });
      socket.on("close", () => resolve(answer));
      socket.on("error", reject);
    });
    const heldMs = Date.now() - started;
    expect(closed).toMatch(/^HTTP\/1\.1 408/);
    expect(heldMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 1_000);
    expect(heldMs).toBeLessThan(HEADERS_TIMEOUT_MS + 15_000);
    expectError(await api.get("/v1/listings?limit=0"), 400, "invalid_request");
  }, 60_000);
});
