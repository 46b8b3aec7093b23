// Oversized input against a real API process, on a real socket: what the HTTP layer does before and
// around the routes. Malformed queries and bodies at each route are api/malformedInput.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { keyExample, tokenExample } from "../support/malformedInput.ts";
import { useStack } from "../support/useStack.ts";

// No indexer: nothing here reads a listing.
const stack = useStack({ api: 1, ponder: false });
let api: ReturnType<typeof http>;

beforeAll(async () => {
  api = http(stack().api.url, { bearer: await signIn(stack().api.url, devAccount(7)) });
});

describe("oversized input on a real socket", () => {
  it("bodies of several megabytes are refused as too large, before they are read", async () => {
    const text = JSON.stringify({ ...tokenExample, ...keyExample, padding: "x".repeat(5_000_000) });
    for (const path of ["/v1/auth/token", "/v1/api-keys"]) {
      expectError(await api.post(path, text), 413, "payload_too_large");
    }
  });

  it("(transport) a URL above Node's 16 KB header limit is refused before it reaches the API", async () => {
    // Recorded, not the API's doing: node:http answers 431 with no body for an oversized request
    // line. Only the status is asserted: the request must still not hang or crash the process.
    const oversized = await api.get(`/v1/listings?q=${"a".repeat(20_000)}`);
    expect(oversized.status).toBe(431);
    expectError(await api.get("/v1/listings?limit=0"), 400, "invalid_request");
  });
});
