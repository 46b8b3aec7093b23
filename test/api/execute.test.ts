// Execution through a real API process: its validation threads check input against the agent's
// schema, the chain is read for the credential, the execution rate limit comes from its environment,
// and the tool definition is served behind authentication like every endpoint. Only refusals are
// sent here: no run is admitted for a worker to take.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { describeAuthenticatedEndpoints } from "../support/authenticatedEndpoints.ts";
import { checkedHttp } from "../support/checkedHttp.ts";
import { expectError, expectOnChainError, http, signIn } from "../support/http.ts";
import { useStack } from "../support/useStack.ts";

const creator = devAccount(2);
const renter = devAccount(3);
const stranger = devAccount(4);
const EXECUTIONS_PER_MINUTE = 2;
const PRICE = parseEther("0.01");

const stack = useStack({
  api: 1,
  rateLimitPerMinute: 40,
  env: { EXECUTION_RATE_LIMIT_PER_MINUTE: String(EXECUTIONS_PER_MINUTE) },
});
let listingId: string;

beforeAll(async () => {
  const onChainId = await stack().publishListing({
    creator,
    seed: "execute-process",
    model: ONE_TIME,
    price: PRICE,
    manifest: {
      name: "linter",
      category: "coding",
      description: "Lints a diff",
      input_schema: {
        type: "object",
        properties: { diff: { type: "string", pattern: "^[+-]" } },
        required: ["diff"],
      },
    },
  });
  listingId = toApiListingId(onChainId);
  const market = stack().marketplace;
  await market.mined(market.as(renter).write.purchaseOneTime([onChainId], { value: PRICE }));
});

describe("POST /v1/execute in an API process", () => {
  it("checks input against the agent's input_schema, naming the path", async () => {
    const api = http(stack().api.url, { bearer: await signIn(stack().api.url, renter) });
    const reply = await api.post("/v1/execute", {
      agent_id: listingId,
      task: "Lint it",
      input: { diff: "no sign" },
    });
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error.message).toBe('input.diff: must match pattern "^[+-]"');
  });

  it("refuses a wallet without a credential, then past the execution limit of its environment", async () => {
    const api = http(stack().api.url, { bearer: await signIn(stack().api.url, stranger) });
    const body = { agent_id: listingId, task: "Lint it" };
    for (let n = 0; n < EXECUTIONS_PER_MINUTE; n++) {
      const refused = await api.post("/v1/execute", body);
      expectOnChainError(refused, 403, "credential_not_found", "CredentialNotFound");
      expect(refused.headers.get("x-ratelimit-limit")).toBe(String(EXECUTIONS_PER_MINUTE));
    }
    const limited = await api.post("/v1/execute", body);
    expectError(limited, 429, "rate_limit_exceeded");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});

describeAuthenticatedEndpoints("GET /v1/tools/execute", {
  api: checkedHttp(() => stack().api.url),
  apiUrl: () => stack().api.url,
  paths: () => ["/v1/tools/execute?format=openai", "/v1/tools/execute?format=anthropic"],
  wallet: renter,
  rateLimitPerMinute: 40,
});
