import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createOverlappingRequests } from "./overlappingRequests.ts";

describe("overlapping requests", () => {
  it("never calls one request at a time busy", async () => {
    const overlapping = createOverlappingRequests();
    for (let i = 0; i < 5; i++) {
      const request = overlapping.start("key:1");
      expect(request.busy).toBe(false);
      request.end();
      await nextTurn();
    }
  });

  it("calls a request busy while another of its subject is in flight, and only of its subject", () => {
    const overlapping = createOverlappingRequests();
    const first = overlapping.start("key:1");
    expect(overlapping.start("key:1").busy).toBe(true);
    expect(overlapping.start("key:2").busy).toBe(false);
    first.end();
  });

  it("calls requests answered one after another in one turn of the event loop busy", async () => {
    const overlapping = createOverlappingRequests();
    const busy = [1, 2, 3].map(() => {
      const request = overlapping.start("key:1");
      request.end();
      return request.busy;
    });
    expect(busy).toEqual([false, true, true]);
    await nextTurn();
    // The last of them overlapped another: the subject stays busy until one runs alone.
    const alone = overlapping.start("key:1");
    alone.end();
    expect(alone.busy).toBe(true);
    await nextTurn();
    expect(overlapping.start("key:1").busy).toBe(false);
  });

  it("keeps requests that move in step busy between steps, until one runs alone", async () => {
    const overlapping = createOverlappingRequests();
    const step = async () => {
      const requests = [1, 2, 3].map(() => overlapping.start("key:1"));
      for (const request of requests) request.end();
      await nextTurn();
      return requests.map((request) => request.busy);
    };
    expect(await step()).toEqual([false, true, true]);
    // Nothing is in flight between steps, yet the next step's first request is busy.
    expect(await step()).toEqual([true, true, true]);

    const alone = overlapping.start("key:1");
    alone.end();
    await nextTurn();
    expect(alone.busy).toBe(true);
    expect(overlapping.start("key:1").busy).toBe(false);
  });

  it("counts a request that another started during its life as overlapped", async () => {
    const overlapping = createOverlappingRequests();
    const long = overlapping.start("key:1");
    const short = overlapping.start("key:1");
    short.end();
    long.end();
    await nextTurn();
    expect(overlapping.start("key:1").busy).toBe(true);
  });
});
