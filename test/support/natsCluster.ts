// The stack's NATS cluster seen through JetStream's own API: which node leads a stream, and when
// every copy of it has caught up again.
import { jetstreamManager, type StreamInfo } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { StackOptions } from "../../devStack/startStack.ts";
import type { TestNats, TestNatsServer } from "../../devStack/startTestNats.ts";
import { streamName } from "../../lib/bus/jetStreamBus.ts";
import { natsConnection } from "../../lib/bus/natsConnection.ts";
import { until } from "./registration.ts";

/** The scale-out stack: 3 API processes and 2 workers over a 3-node JetStream cluster, R3 streams. */
export const SCALE_STACK = { nats: { cluster: 3 }, api: 3, workers: 2 } satisfies StackOptions;

async function streamInfo(nats: TestNats, subject: string): Promise<StreamInfo> {
  const connection = await connect(natsConnection(nats.natsUrl));
  try {
    return await (await jetstreamManager(connection)).streams.info(streamName(subject));
  } finally {
    await connection.close();
  }
}

/** The node leading `subject`'s stream now: the one whose loss costs an election. */
export async function streamLeader(nats: TestNats, subject: string): Promise<TestNatsServer> {
  const { cluster } = await streamInfo(nats, subject);
  const leader = nats.servers.find((server) => server.serverName === cluster?.leader);
  if (!leader) throw new Error(`no node leads ${subject}'s stream (${JSON.stringify(cluster)})`);
  return leader;
}

/** Waits until `subject`'s stream has a leader and every other copy is current. */
export function streamReplicated(nats: TestNats, subject: string, timeoutMs = 60_000) {
  return until(
    `every copy of ${subject}'s stream to be current`,
    async () => {
      const { cluster } = await streamInfo(nats, subject).catch(() => ({ cluster: undefined }));
      const replicas = cluster?.replicas ?? [];
      return (
        cluster?.leader !== undefined &&
        replicas.length === nats.replicas - 1 &&
        replicas.every((replica) => replica.current)
      );
    },
    timeoutMs,
  );
}
