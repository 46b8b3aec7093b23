// Registration on the scale-out stack: a batch of agents registered through three API processes and
// consumed by two workers while the NATS node leading the registration stream is SIGKILLed. Every
// accepted job completes exactly once, and the node rejoins with its copy caught up.
import type { HDAccount } from "viem/accounts";
import { expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { REGISTRATION_SUBJECT } from "../../lib/jobs/publishJob.ts";
import { http, type JsonResponse, signIn } from "../support/http.ts";
import { SCALE_STACK, streamLeader, streamReplicated } from "../support/natsCluster.ts";
import { captureOutput } from "../support/processOutput.ts";
import { recoveryFigures } from "../support/recoveryFigures.ts";
import { declarativeManifest as manifest, registerAgent, until } from "../support/registration.ts";
import { registrationJobs } from "../support/registrationJobs.ts";
import { useStack } from "../support/useStack.ts";

const BEFORE_KILL = 60;
const AFTER_KILL = 30;

const output = captureOutput();
const stack = useStack({
  ...SCALE_STACK,
  // Registration reads and writes the app schema only: no indexer.
  ponder: false,
  rateLimitPerMinute: 100_000,
  // Redelivery after 2 s instead of 30: a job whose acknowledgement was lost comes back quickly.
  env: { REGISTRATION_ACK_WAIT_MS: "2000" },
  onOutput: output.onOutput,
});
const { processedLines, expectCompletedExactlyOnce } = registrationJobs(stack, output);

/** `creator`'s client of each API process (a wallet token holds at every one). */
async function clientsOf(creator: HDAccount) {
  const bearer = await signIn(stack().api.url, creator);
  return stack().apis.map((api: Api) => http(api.url, { bearer }));
}

const acceptedIds = (responses: JsonResponse[]) =>
  responses.map((response) => {
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return response.body.job_id as string;
  });

it("completes every accepted registration exactly once when the node leading the stream is SIGKILLed mid-load", async () => {
  const { nats } = stack();
  // Three copies of the stream, all current, before the fault.
  await streamReplicated(nats, REGISTRATION_SUBJECT);
  const creator = devAccount(40);
  const clients = await clientsOf(creator);
  const post = (index: number) =>
    (clients[index % clients.length] as (typeof clients)[number]).post(
      "/v1/agents",
      manifest(`scale-${index}`),
    );

  const startedAt = Date.now();
  const beforeKill = Array.from({ length: BEFORE_KILL }, (_, index) => post(index));
  await until("the workers to complete a first few jobs", () => processedLines().length >= 5);
  const leader = await streamLeader(nats, REGISTRATION_SUBJECT);
  const killedAt = Date.now();
  await leader.killServer();
  const afterKill = await Promise.all(
    Array.from({ length: AFTER_KILL }, (_, index) => post(BEFORE_KILL + index)),
  );
  const ids = acceptedIds([...(await Promise.all(beforeKill)), ...afterKill]);

  const rows = await expectCompletedExactlyOnce(creator, ids);
  const allDoneAt = Date.now();
  const recovery = recoveryFigures(
    rows.map((row) => row.updatedAt.getTime()),
    killedAt,
  );

  await leader.startServer();
  await streamReplicated(nats, REGISTRATION_SUBJECT);
  const rejoinedAt = Date.now();
  // The cluster, whole again, keeps taking registrations.
  const after = await registerAgent(
    clients[0] as (typeof clients)[number],
    manifest("scale-after"),
  );
  await expectCompletedExactlyOnce(creator, [...ids, after]);

  const leftToRelay = output
    .entries()
    .filter((entry) => entry.message.startsWith("job not yet on the bus")).length;
  console.info(
    `${ids.length} registrations over 3 API processes and 2 workers, the stream's leader SIGKILLed` +
      ` after ${killedAt - startedAt} ms: all completed once in ${allDoneAt - startedAt} ms` +
      ` (${((ids.length * 1000) / (allDoneAt - startedAt)).toFixed(1)} a second);` +
      ` the first completed ${recovery.firstFinishedAfterFaultMs} ms after the kill, the longest` +
      ` pause after it with none completed ${recovery.longestPauseAfterFaultMs} ms` +
      ` (${leftToRelay} left to the outbox relay when their publish failed);` +
      ` the node restarted and its copy was current ${rejoinedAt - allDoneAt} ms later`,
  );
});
