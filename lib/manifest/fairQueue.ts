/** Why a wait was refused: its key already had as many waiting as allowed, or its deadline passed. */
export class QueueRefusal extends Error {
  readonly reason: "full" | "deadline";

  constructor(reason: "full" | "deadline", message: string) {
    super(message);
    this.name = "QueueRefusal";
    this.reason = reason;
  }
}

export type FairQueueOptions = {
  /** Waiters one key may have at once; one more is refused at once. */
  waitingPerKey?: number;
  /** How long a waiter waits for its turn before it is refused. */
  waitMs?: number;
};

export type FairQueue<T> = {
  /** Resolves with what is given to this waiter; rejects with a `QueueRefusal`. */
  wait: (key: string) => Promise<T>;
  /**
   * The next waiter, keys taking turns, among the keys `mayServe` allows; it leaves the queue, to be
   * given its item. Undefined when none waits.
   */
  next: (
    mayServe?: (key: string) => boolean,
  ) => { key: string; give: (item: T) => void } | undefined;
  /** Waiters across keys. */
  readonly size: number;
};

type Waiter<T> = { resolve: (item: T) => void; timer?: NodeJS.Timeout };

/**
 * Waiters for a few shared things (threads), queued per key and served round-robin between keys:
 * however many one key queues, another key's waiter is served after at most one turn of each key
 * ahead of it. Within a key, first come first served; a key may be passed over while it holds as
 * many things as its owner allows it (`mayServe`).
 */
export function createFairQueue<T>({
  waitingPerKey = Number.POSITIVE_INFINITY,
  waitMs = Number.POSITIVE_INFINITY,
}: FairQueueOptions = {}): FairQueue<T> {
  // Keys with waiters, in the order of their turns: a key just served goes to the back.
  const queues = new Map<string, Waiter<T>[]>();
  let size = 0;

  function remove(key: string, waiter: Waiter<T>) {
    const queue = queues.get(key);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    size -= 1;
    if (queue.length === 0) queues.delete(key);
  }

  function wait(key: string): Promise<T> {
    const queue = queues.get(key) ?? [];
    if (queue.length >= waitingPerKey) {
      return Promise.reject(new QueueRefusal("full", `${waitingPerKey} already wait for a turn`));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = { resolve };
      if (Number.isFinite(waitMs)) {
        waiter.timer = setTimeout(() => {
          remove(key, waiter);
          reject(new QueueRefusal("deadline", `no turn came within ${waitMs} ms`));
        }, waitMs);
      }
      queue.push(waiter);
      size += 1;
      // A key already waiting keeps its place in the turns.
      queues.set(key, queue);
    });
  }

  function next(mayServe: (key: string) => boolean = () => true) {
    for (const [key, queue] of queues) {
      if (!mayServe(key)) continue;
      const waiter = queue.shift() as Waiter<T>;
      size -= 1;
      queues.delete(key);
      if (queue.length > 0) queues.set(key, queue);
      clearTimeout(waiter.timer);
      return { key, give: waiter.resolve };
    }
    return undefined;
  }

  return {
    wait,
    next,
    get size() {
      return size;
    },
  };
}
