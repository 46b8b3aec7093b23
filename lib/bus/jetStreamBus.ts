import {
  AckPolicy,
  DeliverPolicy,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
} from "@nats-io/jetstream";
import { connect, headers, type MsgHdrs } from "@nats-io/transport-node";
import {
  type Bus,
  type BusMessage,
  type ConsumerBinding,
  SUBJECTS,
  type Subscription,
} from "./bus.ts";
import { natsConnection } from "./natsConnection.ts";

const DEDUPE_WINDOW_NS = 2 * 60 * 1_000_000_000;
/**
 * How long a pull request lasts (the client's default is 30 s). A pull held by a cluster node that
 * dies is lost with it; the client notices by two missed heartbeats, half this apart, and pulls
 * again from the consumer's new leader, so a node's loss stalls consuming for seconds, not 30.
 */
const PULL_EXPIRES_MS = 5_000;
const millisToNanos = (millis: number) => millis * 1_000_000;

/** A stream per subject, named after it: `jobs.registration` → `JOBS_REGISTRATION`. */
export function streamName(subject: string): string {
  return subject.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/**
 * The bus over NATS JetStream: work-queue streams (a message leaves once acknowledged), publish
 * deduplication by message id, durable pull consumers with explicit acks and finite redelivery.
 * On a cluster, `replicas` copies of each stream (and its consumers) survive the loss of a minority
 * of the servers.
 */
export async function createJetStreamBus(
  natsUrl: string,
  { replicas = 1 }: { replicas?: number } = {},
): Promise<Bus> {
  // Reconnect forever: an outage of NATS must delay work, never end a process's consuming.
  const connection = await connect({
    ...natsConnection(natsUrl),
    name: "marketplace",
    maxReconnectAttempts: -1,
  });
  const manager = await jetstreamManager(connection);
  for (const subject of SUBJECTS) {
    const config = {
      name: streamName(subject),
      subjects: [subject],
      retention: RetentionPolicy.Workqueue,
      duplicate_window: DEDUPE_WINDOW_NS,
      num_replicas: replicas,
    };
    await manager.streams.add(config).catch(async () => {
      await manager.streams.update(config.name, config);
    });
  }
  const client = jetstream(connection);
  const subscriptions = new Set<Subscription>();
  /** Each consumer of this process, with whether its loop still takes messages. */
  const bindings = new Set<{ subject: string; group: string; consuming: () => boolean }>();

  return {
    async publish(subject, id, data, headers) {
      // A short wait: a caller whose publish fails has the outbox relay repair it later.
      const ack = await client.publish(subject, data, {
        msgID: id,
        timeout: 2_000,
        ...(headers && { headers: natsHeaders(headers) }),
      });
      return { duplicate: ack.duplicate };
    },

    async consume(subject, options, handler): Promise<Subscription> {
      const stream = streamName(subject);
      await manager.consumers
        .add(stream, {
          durable_name: options.group,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          ack_wait: millisToNanos(options.ackWaitMs),
          max_deliver: options.maxDeliver,
        })
        .catch(async () => {
          await manager.consumers.update(stream, options.group, {
            ack_wait: millisToNanos(options.ackWaitMs),
            max_deliver: options.maxDeliver,
          });
        });
      const consumer = await client.consumers.get(stream, options.group);
      const messages = await consumer.consume({
        max_messages: options.concurrency ?? 1,
        expires: PULL_EXPIRES_MS,
      });
      const inFlight = new Set<Promise<void>>();
      let consuming = true;
      const loop = (async () => {
        for await (const message of messages) {
          const handled = handler(toBusMessage(message)).catch(() => message.nak(1_000));
          inFlight.add(handled);
          handled.finally(() => inFlight.delete(handled));
          if (inFlight.size >= (options.concurrency ?? 1)) await Promise.race(inFlight);
        }
      })().finally(() => {
        consuming = false;
      });
      const binding = { subject, group: options.group, consuming: () => consuming };
      bindings.add(binding);
      const subscription = {
        stop: async () => {
          subscriptions.delete(subscription);
          bindings.delete(binding);
          await messages.close();
          await loop;
          await Promise.allSettled(inFlight);
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    notify(topic, data) {
      connection.publish(topic, data);
    },

    listen(topic, handler) {
      const subscription = connection.subscribe(topic, { callback: (_, msg) => handler(msg.data) });
      return { stop: async () => subscription.unsubscribe() };
    },

    async ping() {
      await connection.flush();
    },

    async consumers(): Promise<ConsumerBinding[]> {
      return Promise.all(
        [...bindings].map(async ({ subject, group, consuming }) => {
          const held = await manager.consumers.info(streamName(subject), group).then(
            () => true,
            () => false,
          );
          return { subject, group, bound: consuming() && held };
        }),
      );
    },

    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      await connection.drain();
    },
  };
}

function natsHeaders(values: Readonly<Record<string, string>>): MsgHdrs {
  const carried = headers();
  for (const [name, value] of Object.entries(values)) carried.set(name, value);
  return carried;
}

/** A message's own headers, without those NATS sets (`Nats-Msg-Id`, …). */
function ownHeaders(carried: MsgHdrs | undefined): Record<string, string> | undefined {
  const own = Object.fromEntries(
    [...(carried?.keys() ?? [])]
      .filter((name) => !name.startsWith("Nats-"))
      .map((name) => [name, carried?.get(name) ?? ""]),
  );
  return Object.keys(own).length > 0 ? own : undefined;
}

function toBusMessage(message: JsMsg): BusMessage {
  return {
    id: message.headers?.get("Nats-Msg-Id") ?? String(message.seq),
    subject: message.subject,
    data: message.data,
    headers: ownHeaders(message.headers),
    deliveryCount: message.info.deliveryCount,
    ack: async () => {
      await message.ackAck();
    },
    retry: async (delayMs) => message.nak(delayMs),
    reject: async () => message.term(),
    working: async () => message.working(),
  };
}
