import { describe, expect, it } from "vitest";
import { createFairQueue, type FairQueue, QueueRefusal } from "./fairQueue.ts";

/** Gives `item` to the next waiter; the key served, or undefined when none waits. */
function hand<T>(queue: FairQueue<T>, item: T, mayServe?: (key: string) => boolean) {
  const next = queue.next(mayServe);
  next?.give(item);
  return next?.key;
}

/** Waits of each key in `keys`, recording in `served` the order they are served in. */
function waitAll(queue: FairQueue<number>, keys: string[]) {
  const served: string[] = [];
  const waits = keys.map((key) => queue.wait(key).then(() => served.push(key)));
  return { served, waits };
}

describe("createFairQueue", () => {
  it("serves keys in turn, each key's waiters in their order", async () => {
    const queue = createFairQueue<number>();
    const { served, waits } = waitAll(queue, ["a", "a", "a", "a", "b", "c", "b"]);
    for (let item = 0; item < 7; item++) hand(queue, item);
    await Promise.all(waits);
    expect(served).toEqual(["a", "b", "c", "a", "b", "a", "a"]);
    expect(queue.next()).toBeUndefined();
    expect(queue.size).toBe(0);
  });

  it("serves a key that arrives behind a long backlog after one turn of the backlog's key", async () => {
    const queue = createFairQueue<number>();
    const backlog = waitAll(queue, Array(10).fill("flood"));
    hand(queue, 0);
    const late = queue.wait("other");
    hand(queue, 1);
    hand(queue, 2);
    expect(await late).toBe(2);
    expect(queue.size).toBe(8);
    while (hand(queue, 3));
    await Promise.all(backlog.waits);
  });

  it("passes over a key its owner does not allow, which keeps its place", async () => {
    const queue = createFairQueue<number>();
    const { served, waits } = waitAll(queue, ["a", "b", "a"]);
    expect(hand(queue, 0, (key) => key !== "a")).toBe("b");
    expect(hand(queue, 1, (key) => key !== "a")).toBeUndefined();
    hand(queue, 1);
    hand(queue, 2);
    await Promise.all(waits);
    expect(served).toEqual(["b", "a", "a"]);
  });

  it("refuses a key's waiter past its bound at once, and other keys still wait", async () => {
    const queue = createFairQueue<number>({ waitingPerKey: 2 });
    const waits = [queue.wait("a"), queue.wait("a")];
    const refusal = await queue.wait("a").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(QueueRefusal);
    expect(refusal).toMatchObject({ reason: "full" });
    const other = queue.wait("b");
    expect(queue.size).toBe(3);
    for (let item = 0; item < 3; item++) hand(queue, item);
    expect(await Promise.all([...waits, other])).toEqual([0, 2, 1]);
    // Served, the key has room again.
    const again = queue.wait("a");
    hand(queue, 3);
    expect(await again).toBe(3);
  });

  it("refuses a waiter whose deadline passes, and gives the next one what comes later", async () => {
    const queue = createFairQueue<number>({ waitMs: 20 });
    const expired = queue.wait("a").catch((error: unknown) => error);
    expect(await expired).toMatchObject({
      reason: "deadline",
      message: "no turn came within 20 ms",
    });
    expect(queue.size).toBe(0);
    expect(queue.next()).toBeUndefined();
    const next = queue.wait("a");
    hand(queue, 2);
    expect(await next).toBe(2);
  });
});
