// The delivery rules every bus implementation keeps; run against each of them.
import { describe, expect, it, type TestContext } from "vitest";
import type { Bus, BusMessage, ConsumeOptions } from "../../lib/bus/bus.ts";

const SUBJECT = "jobs.registration";
const OPTIONS: ConsumeOptions = { group: "contract", ackWaitMs: 600, maxDeliver: 3 };

export type BusUnderTest = { bus: Bus; cleanup: () => Promise<void> };

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (data: Uint8Array) => new TextDecoder().decode(data);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(10);
  }
}

/**
 * The contract's tests for the bus `createBus` makes, one bus each. They run concurrently: most of
 * their time is spent waiting out ack waits to prove that nothing more arrives. Those sleeps (of an
 * ack wait or more, and the work that takes half of one between reports) are the passing of time
 * under test.
 */
export function describeBusContract(name: string, createBus: () => Promise<BusUnderTest>) {
  describe.concurrent(`${name} keeps the bus contract`, () => {
    /** A bus of the test's own, cleaned up when it finishes. */
    const start = async ({ onTestFinished }: TestContext) => {
      const { bus, cleanup } = await createBus();
      onTestFinished(cleanup);
      return bus;
    };

    it("tells a notice to everyone listening on its topic, and to no one after they stop", async (context) => {
      const bus = await start(context);
      const heard: string[] = [];
      const first = bus.listen("notices.a", (data) => heard.push(`first ${decode(data)}`));
      bus.listen("notices.a", (data) => heard.push(`second ${decode(data)}`));
      bus.listen("notices.b", (data) => heard.push(`other ${decode(data)}`));
      await sleep(100); // a NATS subscription is in place once the server has it
      bus.notify("notices.a", encode("one"));
      await until(() => heard.length === 2);
      await first.stop();
      await sleep(100);
      bus.notify("notices.a", encode("two"));
      await until(() => heard.length === 3);
      await sleep(100);
      expect(heard.sort()).toEqual(["first one", "second one", "second two"]);
    });

    it("answers a ping, and lists its consumers as bound until they stop", async (context) => {
      const bus = await start(context);
      await bus.ping();
      expect(await bus.consumers()).toEqual([]);
      const subscription = await bus.consume(SUBJECT, OPTIONS, (message) => message.ack());
      expect(await bus.consumers()).toEqual([
        { subject: SUBJECT, group: OPTIONS.group, bound: true },
      ]);
      await subscription.stop();
      expect(await bus.consumers()).toEqual([]);
    });

    it("delivers a message once, with its id and data, and forgets it when acknowledged", async (context) => {
      const bus = await start(context);
      const received: BusMessage[] = [];
      await bus.consume(SUBJECT, OPTIONS, async (message) => {
        received.push(message);
        await message.ack();
      });
      await bus.publish(SUBJECT, "job_1", encode("hello"));
      await until(() => received.length === 1);
      await sleep(OPTIONS.ackWaitMs * 2);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ id: "job_1", subject: SUBJECT, deliveryCount: 1 });
      expect(decode(received[0]?.data ?? new Uint8Array())).toBe("hello");
    });

    it("drops a second publish of the same id", async (context) => {
      const bus = await start(context);
      expect(await bus.publish(SUBJECT, "job_1", encode("first"))).toEqual({ duplicate: false });
      expect(await bus.publish(SUBJECT, "job_1", encode("second"))).toEqual({ duplicate: true });
      const received: string[] = [];
      await bus.consume(SUBJECT, OPTIONS, async (message) => {
        received.push(decode(message.data));
        await message.ack();
      });
      await until(() => received.length === 1);
      await sleep(300); // time for a second message, which would come at once, to arrive
      expect(received).toEqual(["first"]);
    });

    it("delivers messages published before anyone consumed", async (context) => {
      const bus = await start(context);
      for (const id of ["a", "b", "c"]) await bus.publish(SUBJECT, id, encode(id));
      const received: string[] = [];
      await bus.consume(SUBJECT, OPTIONS, async (message) => {
        received.push(message.id);
        await message.ack();
      });
      await until(() => received.length === 3);
      expect(received.sort()).toEqual(["a", "b", "c"]);
    });

    it("redelivers a retried message, counting deliveries, at most maxDeliver times", async (context) => {
      const bus = await start(context);
      const deliveries: number[] = [];
      await bus.consume(SUBJECT, OPTIONS, async (message) => {
        deliveries.push(message.deliveryCount);
        await message.retry(50);
      });
      await bus.publish(SUBJECT, "flaky", encode("x"));
      await until(() => deliveries.length === OPTIONS.maxDeliver);
      await sleep(OPTIONS.ackWaitMs * 2);
      expect(deliveries).toEqual([1, 2, 3]);
    });

    it("never redelivers a rejected message", async (context) => {
      const bus = await start(context);
      let deliveries = 0;
      await bus.consume(SUBJECT, OPTIONS, async (message) => {
        deliveries += 1;
        await message.reject();
      });
      await bus.publish(SUBJECT, "bad", encode("x"));
      await until(() => deliveries === 1);
      await sleep(OPTIONS.ackWaitMs * 2);
      expect(deliveries).toBe(1);
    });

    it("redelivers to another consumer what a dead consumer held past the ack wait", async (context) => {
      const bus = await start(context);
      let held = false;
      const dead = await bus.consume(SUBJECT, OPTIONS, async () => {
        held = true; // never settles, like a worker killed mid-job
      });
      await bus.publish(SUBJECT, "job_1", encode("x"));
      await until(() => held);
      await dead.stop();

      const completed: BusMessage[] = [];
      await bus.consume(SUBJECT, OPTIONS, async (message) => {
        completed.push(message);
        await message.ack();
      });
      await until(() => completed.length === 1);
      expect(completed[0]).toMatchObject({ id: "job_1", deliveryCount: 2 });
    });

    it("keeps a message with its consumer while it reports work in progress", async (context) => {
      const bus = await start(context);
      const deliveries: number[] = [];
      await bus.consume(SUBJECT, OPTIONS, async (message) => {
        deliveries.push(message.deliveryCount);
        for (let i = 0; i < 4; i++) {
          await sleep(OPTIONS.ackWaitMs / 2);
          await message.working();
        }
        await message.ack();
      });
      await bus.publish(SUBJECT, "slow", encode("x"));
      await until(() => deliveries.length === 1);
      await sleep(OPTIONS.ackWaitMs * 3);
      expect(deliveries).toEqual([1]);
    });

    it("shares a group's work: each message reaches exactly one of its consumers", async (context) => {
      const bus = await start(context);
      const handledBy = new Map<string, string[]>();
      for (const worker of ["one", "two"]) {
        await bus.consume(SUBJECT, { ...OPTIONS, concurrency: 2 }, async (message) => {
          handledBy.set(message.id, [...(handledBy.get(message.id) ?? []), worker]);
          await sleep(5);
          await message.ack();
        });
      }
      const ids = Array.from({ length: 40 }, (_, i) => `job_${i}`);
      for (const id of ids) await bus.publish(SUBJECT, id, encode(id));
      await until(() => handledBy.size === ids.length);
      await sleep(OPTIONS.ackWaitMs * 2);
      expect([...handledBy.keys()].sort()).toEqual([...ids].sort());
      expect([...handledBy.values()].every((workers) => workers.length === 1)).toBe(true);
    });
  });
}
