import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager, RetentionPolicy } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { natsConnection } from "../lib/bus/natsConnection.ts";

const DEDUPE_WINDOW_NS = 2 * 60 * 1_000_000_000;

export type JetStreamFloor = {
  sequentialMs: number[];
  sequentialPerSecond: number;
  concurrentPerSecond: number;
};

/**
 * JetStream publish with a msgID, awaiting the stream's ack, as the bus does, on a scratch stream
 * configured like the bus's: `publishes` one at a time after `warmUp`, then as many with `inFlight`
 * at once.
 */
export async function measureJetStreamPublish(
  natsUrl: string,
  { publishes, warmUp, inFlight }: { publishes: number; warmUp: number; inFlight: number },
): Promise<JetStreamFloor> {
  const connection = await connect({ ...natsConnection(natsUrl), name: "bench-floor" });
  try {
    const manager = await jetstreamManager(connection);
    // Configured as the bus configures its streams: work queue, deduplication window.
    await manager.streams.add({
      name: "BENCH_SCRATCH",
      subjects: ["bench.scratch"],
      retention: RetentionPolicy.Workqueue,
      duplicate_window: DEDUPE_WINDOW_NS,
    });
    const client = jetstream(connection);
    const encoder = new TextEncoder();
    let sequence = 0;
    const publish = () => {
      const id = `job_${randomBytes(12).toString("hex")}`;
      sequence++;
      return client.publish("bench.scratch", encoder.encode(id), { msgID: id });
    };
    for (let i = 0; i < warmUp; i++) await publish();
    const sequentialMs: number[] = [];
    const sequentialFrom = performance.now();
    for (let i = 0; i < publishes; i++) {
      const sent = performance.now();
      await publish();
      sequentialMs.push(performance.now() - sent);
    }
    const sequentialPerSecond = publishes / ((performance.now() - sequentialFrom) / 1000);
    const concurrentFrom = performance.now();
    let left = publishes;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (left-- > 0) await publish();
      }),
    );
    const concurrentPerSecond = publishes / ((performance.now() - concurrentFrom) / 1000);
    const info = await manager.streams.info("BENCH_SCRATCH");
    if (info.state.messages !== sequence) {
      throw new Error(`scratch stream holds ${info.state.messages} of ${sequence} messages`);
    }
    await manager.streams.delete("BENCH_SCRATCH");
    return { sequentialMs, sequentialPerSecond, concurrentPerSecond };
  } finally {
    await connection.drain();
  }
}
