import type { Bus, BusMessage, ConsumeOptions, Subscription } from "./bus.ts";

type Stored = {
  id: string;
  subject: string;
  data: Uint8Array;
  headers?: Readonly<Record<string, string>>;
  deliveries: number;
};
type Consumer = {
  options: ConsumeOptions;
  handler: (message: BusMessage) => Promise<void>;
  inFlight: number;
  stopped: boolean;
};

const DEDUPE_WINDOW_MS = 2 * 60_000;

/**
 * The bus inside one process, for `npm start` without NATS: the same delivery rules as JetStream
 * (dedupe by id, one consumer per group gets each message, redelivery after ack wait, bounded
 * deliveries), none of its durability across restarts.
 */
export function createInProcessBus(): Bus & {
  /** Nothing left to deliver: no message queued, unsettled or due for redelivery. */
  idle: () => boolean;
} {
  const pending = new Map<string, Stored[]>();
  const groups = new Map<string, Consumer[]>();
  const seen = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const listeners = new Map<string, Set<(data: Uint8Array) => void>>();
  let closed = false;

  const later = (delayMs: number, action: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) action();
    }, delayMs);
    timers.add(timer);
    return timer;
  };

  function enqueue(stored: Stored) {
    const queue = pending.get(stored.subject) ?? [];
    queue.push(stored);
    pending.set(stored.subject, queue);
    dispatch(stored.subject);
  }

  function dispatch(subject: string) {
    const queue = pending.get(subject);
    if (!queue) return;
    for (const [key, consumers] of groups) {
      if (!key.startsWith(`${subject}\u0000`)) continue;
      while (queue.length > 0) {
        const consumer = consumers.find(
          (candidate) =>
            !candidate.stopped && candidate.inFlight < (candidate.options.concurrency ?? 1),
        );
        if (!consumer) break;
        const stored = queue.shift();
        if (stored) deliver(consumer, stored);
      }
    }
  }

  function deliver(consumer: Consumer, stored: Stored) {
    stored.deliveries += 1;
    consumer.inFlight += 1;
    let settled = false;
    let ackTimer = later(consumer.options.ackWaitMs, () => settle(() => redeliver(0)));
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(ackTimer);
      timers.delete(ackTimer);
      consumer.inFlight -= 1;
      action();
      dispatch(stored.subject);
    };
    const redeliver = (delayMs: number) => {
      if (stored.deliveries >= consumer.options.maxDeliver) return;
      later(delayMs, () => enqueue(stored));
    };
    const message: BusMessage = {
      id: stored.id,
      subject: stored.subject,
      data: stored.data,
      headers: stored.headers,
      deliveryCount: stored.deliveries,
      ack: async () => settle(() => {}),
      retry: async (delayMs) => settle(() => redeliver(delayMs)),
      reject: async () => settle(() => {}),
      working: async () => {
        if (settled) return;
        clearTimeout(ackTimer);
        timers.delete(ackTimer);
        ackTimer = later(consumer.options.ackWaitMs, () => settle(() => redeliver(0)));
      },
    };
    consumer.handler(message).catch(() => message.retry(1_000));
  }

  return {
    async publish(subject, id, data, headers) {
      const now = Date.now();
      for (const [key, at] of seen) if (now - at > DEDUPE_WINDOW_MS) seen.delete(key);
      const key = `${subject}\u0000${id}`;
      if (seen.has(key)) return { duplicate: true };
      seen.set(key, now);
      enqueue({ id, subject, data, headers, deliveries: 0 });
      return { duplicate: false };
    },
    async consume(subject, options, handler): Promise<Subscription> {
      const key = `${subject}\u0000${options.group}`;
      const consumer: Consumer = { options, handler, inFlight: 0, stopped: false };
      groups.set(key, [...(groups.get(key) ?? []), consumer]);
      dispatch(subject);
      return {
        stop: async () => {
          consumer.stopped = true;
          groups.set(
            key,
            (groups.get(key) ?? []).filter((other) => other !== consumer),
          );
        },
      };
    },
    notify(topic, data) {
      for (const handler of listeners.get(topic) ?? []) queueMicrotask(() => handler(data));
    },
    listen(topic, handler) {
      const handlers = listeners.get(topic) ?? new Set();
      handlers.add(handler);
      listeners.set(topic, handlers);
      return {
        stop: async () => {
          handlers.delete(handler);
          if (handlers.size === 0) listeners.delete(topic);
        },
      };
    },
    async ping() {},
    async consumers() {
      return [...groups].flatMap(([key, consumers]) => {
        const subject = key.slice(0, key.indexOf("\u0000"));
        return consumers.map(({ options }) => ({ subject, group: options.group, bound: !closed }));
      });
    },
    idle() {
      const inFlight = [...groups.values()].flat().some((consumer) => consumer.inFlight > 0);
      const queued = [...pending.values()].some((queue) => queue.length > 0);
      return !inFlight && !queued && timers.size === 0;
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
