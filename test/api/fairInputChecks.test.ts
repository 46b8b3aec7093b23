// Input checks through a real API process while one creator floods its own listing with inputs that
// take minutes to check against its legal schema: the flood holds one validation thread and a
// queue of its own, whatever waits past the deadline is refused 503, and another listing's check is
// answered meanwhile.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { INPUT_CHECK_BUDGET_MS } from "../../api/limits.ts";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { slowInput, slowToCheck } from "../support/hostileSchemas.ts";
import { expectError, http, type JsonResponse, signIn } from "../support/http.ts";
import { useStack } from "../support/useStack.ts";

const creator = devAccount(2);
const otherCreator = devAccount(5);
const renter = devAccount(3);
const PRICE = parseEther("0.01");
/** More slow inputs than one thread checks within the wait's deadline: the rest are refused. */
const FLOOD = 26;

const stack = useStack({ api: 1, rateLimitPerMinute: 1_000 });
let slowListing: string;
let linterListing: string;

beforeAll(async () => {
  const market = stack().marketplace;
  const slow = await stack().publishListing({
    creator,
    seed: "slow-input",
    model: ONE_TIME,
    price: PRICE,
    manifest: {
      name: "nested",
      category: "coding",
      description: "Nests",
      input_schema: slowToCheck(),
    },
  });
  const linter = await stack().publishListing({
    creator: otherCreator,
    seed: "linter-input",
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
  slowListing = toApiListingId(slow);
  linterListing = toApiListingId(linter);
  // The creator rents its own listing and raises its execution limit to the ceiling.
  await market.mined(market.as(creator).write.purchaseOneTime([slow], { value: PRICE }));
  await market.mined(market.as(renter).write.purchaseOneTime([linter], { value: PRICE }));
  const asCreator = http(stack().api.url, { bearer: await signIn(stack().api.url, creator) });
  const limit = await asCreator.put(`/v1/listings/${slowListing}/execution-limit`, {
    requests_per_minute: 600,
  });
  expect(limit.status).toBe(200);
});

describe("input checks in an API process", () => {
  it("finding M-4: a creator's flood of slow inputs is refused 503 past the wait's deadline, and another listing's input is checked meanwhile", async () => {
    const url = stack().api.url;
    const flooder = http(url, { bearer: await signIn(url, creator) });
    const renterApi = http(url, { bearer: await signIn(url, renter) });

    const floodAnswers: JsonResponse[] = [];
    const flood = Array.from({ length: FLOOD }, () =>
      flooder
        .post("/v1/execute", { agent_id: slowListing, task: "Check", input: slowInput(31) })
        .then((reply) => {
          floodAnswers.push(reply);
          return reply;
        }),
    );
    // The first answer over the input budget: the flood holds its thread, its backlog waits.
    const firstChecked = await Promise.any(
      flood.map((reply) =>
        reply.then((answer) => (answer.status === 400 ? answer : Promise.reject(answer))),
      ),
    );
    expectError(firstChecked, 400, "invalid_request");

    // Another listing's input, off its schema: the answer is its check's.
    const checked = await renterApi.post("/v1/execute", {
      agent_id: linterListing,
      task: "Lint it",
      input: { diff: "no sign" },
    });
    const floodUnansweredThen = FLOOD - floodAnswers.length;
    expectError(checked, 400, "invalid_request");
    expect(checked.body.error.message).toBe('input.diff: must match pattern "^[+-]"');
    expect(
      floodUnansweredThen,
      "flood requests still waiting when it was answered",
    ).toBeGreaterThan(0);

    // Every flooding request ends: checked and over the input budget, or refused with Retry-After.
    const answers = await Promise.all(flood);
    const outcomes = answers.map((answer) => {
      if (answer.status === 503) {
        expectError(answer, 503, "service_unavailable");
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        return "refused";
      }
      expectError(answer, 400, "invalid_request");
      expect(answer.body.error.message).toBe(
        `input: could not be checked within ${INPUT_CHECK_BUDGET_MS} ms`,
      );
      return "over budget";
    });
    expect(outcomes).toContain("over budget");
    expect(outcomes).toContain("refused");
  }, 120_000);
});
