/** A delivered command: settle it exactly once with `ack`, `retry` or `reject`. */
export type BusMessage = {
  /** The id it was published with: also the deduplication key. */
  id: string;
  subject: string;
  data: Uint8Array;
  /** What it was published with, beside its data (a trace's `traceparent`); none when empty. */
  headers?: Readonly<Record<string, string>>;
  /** 1 on first delivery. */
  deliveryCount: number;
  ack: () => Promise<void>;
  /** Deliver again after `delayMs` (a failure a retry can fix). */
  retry: (delayMs: number) => Promise<void>;
  /** Never deliver again (a failure no retry can fix). */
  reject: () => Promise<void>;
  /** Extends the time to settle before the message counts as lost and is redelivered. */
  working: () => Promise<void>;
};

export type ConsumeOptions = {
  /** Consumers sharing a group share the work: each message goes to one of them. */
  group: string;
  /** A message unsettled this long is delivered again (its consumer is presumed dead). */
  ackWaitMs: number;
  /** Deliveries after which an unsettled or retried message is dropped. */
  maxDeliver: number;
  concurrency?: number;
};

export type Subscription = { stop: () => Promise<void> };

/**
 * Durable commands between processes: NATS JetStream in production, an in-process stand-in for the
 * embedded default. Both pass test/bus/busContract.ts.
 */
export type Bus = {
  /**
   * Stores `data` under `id`, with `headers` if any; publishing an id again within the dedupe window
   * is a no-op.
   */
  publish: (
    subject: string,
    id: string,
    data: Uint8Array,
    headers?: Readonly<Record<string, string>>,
  ) => Promise<{ duplicate: boolean }>;
  consume: (
    subject: string,
    options: ConsumeOptions,
    handler: (message: BusMessage) => Promise<void>,
  ) => Promise<Subscription>;
  /**
   * Tells whoever listens on `topic` right now (a run's output deltas, a wake-up); nothing is kept,
   * so a notice no one hears is lost. Topics never start with a command subject.
   */
  notify: (topic: string, data: Uint8Array) => void;
  listen: (topic: string, handler: (data: Uint8Array) => void) => Subscription;
  /** Resolves once the broker has answered a round trip (at once, in-process). */
  ping: () => Promise<void>;
  /**
   * The consumers this process runs: each `bound` while its loop takes messages and the broker still
   * holds it.
   */
  consumers: () => Promise<ConsumerBinding[]>;
  close: () => Promise<void>;
};

export type ConsumerBinding = { subject: string; group: string; bound: boolean };

/** The subjects the bus carries; each gets a stream (or queue) of its own. */
export const SUBJECTS = ["jobs.registration", "runs.execute"] as const;
export type Subject = (typeof SUBJECTS)[number];
