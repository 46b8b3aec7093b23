import { describe, expect, it } from "vitest";
import { createAlarm } from "./alarm.ts";

describe("the settlement's alarm", () => {
  it("ends a sleep early when rung", async () => {
    const alarm = createAlarm();
    const started = Date.now();
    const sleeping = alarm.sleep(10_000);
    alarm.ring();
    await sleeping;
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("keeps a ring that came while nobody slept for the next sleep, once", async () => {
    const alarm = createAlarm();
    alarm.ring();
    const started = Date.now();
    await alarm.sleep(10_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    const next = await Promise.race([
      alarm.sleep(200).then(() => "slept"),
      new Promise((resolve) => setTimeout(() => resolve("still asleep"), 50)),
    ]);
    expect(next).toBe("still asleep");
  });

  it("sleeps its whole time when not rung", async () => {
    const started = Date.now();
    await createAlarm().sleep(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
