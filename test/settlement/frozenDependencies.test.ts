// Postgres, the chain node and NATS each frozen (SIGSTOP) for 20 s in turn on the real stack (an API
// process, a worker process over NATS JetStream settling on anvil, a connected agent listed per
// task), with nothing restarted. After each freeze the project's own loops recover by themselves: a
// run is admitted at the head the API's chain-heads watcher announces, taken and completed by the run
// worker and debited by the settlement leader, and a new agent's registration is processed by the
// registration worker. The books balance at the end.
import { parseEther } from "viem";
import { beforeAll, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { http, signIn } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { declarativeManifest, registerAgent, settledJob, until } from "../support/registration.ts";
import { settledRuns } from "./settlementFixtures.ts";

/** An RPC provider or a database stalling this long is an ordinary day (issue: the indexer never stalls silently). */
const FREEZE_MS = 20_000;
/** Within this of SIGCONT a run is answered and a registration processed again. */
const RECOVERY_MS = 30_000;
const PRICE = parseEther("0.001");

const { stack, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "frozen-dependencies",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});
let renter: Renter;
let creator: ReturnType<typeof http>;

beforeAll(async () => {
  renter = await addRenter(PRICE * 20n);
  creator = http(stack().api.url, { bearer: await signIn(stack().api.url, devAccount(5)) });
});

/** A run answered completed, sent again while the API refuses it with a 503 for what just thawed. */
async function completedRun(): Promise<string> {
  return until(
    "a run completed",
    async () => {
      const reply = await renter.api.post("/v1/execute", {
        agent_id: listing().agentId,
        task: behaving(),
      });
      if (reply.status === 503) return false;
      expect({ status: reply.status, run: reply.body.status }).toEqual({
        status: 200,
        run: "completed",
      });
      return reply.body.run_id as string;
    },
    RECOVERY_MS,
  );
}

it("settles runs and processes registrations again after 20 s freezes of Postgres, the chain and NATS", async () => {
  const processes = { postgres: stack().postgres, chain: stack().anvil, nats: stack().nats };
  const settledAfter: Record<string, string> = {};
  for (const dependency of ["postgres", "chain", "nats"] as const) {
    processes[dependency].kill("SIGSTOP");
    try {
      await new Promise((resolve) => setTimeout(resolve, FREEZE_MS)); // the freeze itself is tested
    } finally {
      processes[dependency].kill("SIGCONT");
    }
    const runId = await completedRun();
    const [row] = await settledRuns(stack(), [runId]);
    settledAfter[dependency] = row?.charge ?? "unsettled";
    const job = await settledJob(
      creator,
      await registerAgent(creator, declarativeManifest(`after-${dependency}-freeze`)),
      RECOVERY_MS,
    );
    expect(job.body.status, dependency).toBe("completed");
  }
  expect(settledAfter).toEqual({ postgres: "debited", chain: "debited", nats: "debited" });
  await expectBooksBalance();
}, 300_000);
