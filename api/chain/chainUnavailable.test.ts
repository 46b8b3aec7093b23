// When the chain cannot be read, what needs it answers 503 `service_unavailable` (a retry may help),
// never a false 401 or an empty list; what does not need it goes on working. Two apps share one
// database: one reads the stack's chain, the other a port nobody listens on.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../devStack/findFreePort.ts";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { expectError } from "../../test/support/http.ts";
import { createTestApp, type TestApp } from "../../test/support/testApp.ts";
import { useStack } from "../../test/support/useStack.ts";

const creator = devAccount(2);
const alice = devAccount(4);
const bob = devAccount(5);
const stack = useStack({ chain: true, postgres: true, ponder: true });

let chainUp: TestApp;
let chainDown: TestApp;
let listingId: string;

beforeAll(async () => {
  chainUp = createTestApp(stack());
  chainDown = createTestApp(stack(), { rpcUrl: `http://127.0.0.1:${await findFreePort()}` });
  const onChainId = await stack().publishListing({
    creator,
    seed: "chain-unavailable",
    model: ONE_TIME,
    price: parseEther("0.01"),
    manifest: {
      name: "uptime-watch",
      category: "research",
      description: "Watches endpoints and reports outages",
      sample_output: ["All endpoints up."],
      creator_display_name: "Ops Co",
    },
  });
  listingId = toApiListingId(onChainId);
});

async function challengeFor(api: TestApp, wallet: string): Promise<string> {
  const reply = await api.http().get(`/v1/auth/challenge?wallet=${wallet}`);
  expect(reply.status).toBe(200);
  return reply.body.challenge;
}

describe("signing in while the chain cannot be read", () => {
  it("refuses a signature that is not the wallet's with 503, and spends no challenge on it", async () => {
    const challenge = await challengeFor(chainDown, alice.address);
    const bobs = {
      wallet: alice.address,
      challenge,
      signature: await bob.signMessage({ message: challenge }),
    };

    // Only the chain could tell whether alice's address is a contract wallet that accepts it.
    expectError(await chainDown.http().post("/v1/auth/token", bobs), 503, "service_unavailable");
    // The control: with the chain up, the same body is an invalid signature.
    expectError(await chainUp.http().post("/v1/auth/token", bobs), 401, "invalid_signature");

    const signature = await alice.signMessage({ message: challenge });
    const signedIn = await chainUp
      .http()
      .post("/v1/auth/token", { wallet: alice.address, challenge, signature });
    expect(signedIn.status).toBe(200);
  });

  it("signs in with an ordinary account's valid signature, checked without the chain", async () => {
    const challenge = await challengeFor(chainDown, alice.address);
    const signature = await alice.signMessage({ message: challenge });
    const reply = await chainDown.http().post("/v1/auth/token", {
      wallet: alice.address,
      challenge,
      signature,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ token: expect.any(String), expires_at: expect.any(Number) });
    // The token it issued is a bearer like any other.
    const listings = await chainDown.http(reply.body.token).get("/v1/listings");
    expect(listings.status).toBe(200);
  });
});

describe("credentials while the chain cannot be read", () => {
  it("GET /v1/credentials answers 503: statuses are read at the chain's latest block", async () => {
    const token = await chainDown.tokenFor(alice);
    expectError(await chainDown.http(token).get("/v1/credentials"), 503, "service_unavailable");
    const control = await chainUp.http(token).get("/v1/credentials");
    expect(control.body).toStrictEqual({ credentials: [], total: 0 });
  });

  it("GET /v1/credentials/:listing_id answers 503 for a published listing", async () => {
    const token = await chainDown.tokenFor(alice);
    const path = `/v1/credentials/${listingId}`;
    expectError(await chainDown.http(token).get(path), 503, "service_unavailable");
    const control = await chainUp.http(token).get(path);
    expect(control.body).toStrictEqual({
      listing_id: listingId,
      valid: false,
      status: "not_found",
      on_chain_verified: false,
    });
  });
});
