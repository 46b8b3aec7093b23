// The moment no run command can be delivered again: a test that counts agent calls after it sees
// every duplicate the bus could have delivered, not only those that came before a fixed sleep.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import { streamName } from "../../lib/bus/jetStreamBus.ts";
import { natsConnection } from "../../lib/bus/natsConnection.ts";
import { RUN_SUBJECT } from "../../lib/runLedger/publishRun.ts";
import { RUN_GROUP } from "../../workers/execution/runWorker.ts";
import { until } from "./registration.ts";

/**
 * Waits until the run workers' JetStream consumer has delivered every run command published so
 * far and had each settled: none pending, none awaiting an ack, none due for redelivery.
 */
export async function untilRunCommandsSettledOnNats(natsUrl: string, timeoutMs = 30_000) {
  const connection = await connect(natsConnection(natsUrl));
  try {
    const manager = await jetstreamManager(connection);
    await until(
      "every run command delivered and settled",
      async () => {
        const info = await manager.consumers.info(streamName(RUN_SUBJECT), RUN_GROUP);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      timeoutMs,
    );
  } finally {
    await connection.close();
  }
}

/** The same for the in-process bus: nothing queued, unsettled or due for redelivery. */
export async function untilRunCommandsSettledInProcess(
  bus: ReturnType<typeof createInProcessBus>,
  timeoutMs = 30_000,
) {
  await until("every run command delivered and settled", () => bus.idle(), timeoutMs);
}
