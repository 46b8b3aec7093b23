import { connect } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { startStack } from "../../devStack/startStack.ts";
import { NATS_USER } from "../../devStack/startTestNats.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { natsConnection } from "../../lib/bus/natsConnection.ts";
import { runTopic } from "../../lib/runLedger/notices.ts";
import { secretScan } from "../support/secretScan.ts";
import { describeBusContract } from "./busContract.ts";

// A NATS server per test: the contract's tests run concurrently, and the bus's streams are fixed.
// Each requires a user and password, which the bus takes from the URL it is given (finding L-4).
describeBusContract("the NATS JetStream bus", async () => {
  const stack = await startStack({ chain: false, postgres: false, nats: { password: true } });
  const bus = await createJetStreamBus(stack.nats.natsUrl);
  return {
    bus,
    cleanup: async () => {
      await bus.close();
      await stack.stop();
    },
  };
});

describe("NATS requiring credentials", () => {
  it("finding L-4: refuses a client without the password; the bus given it in NATS_URL consumes and hears output deltas, and never prints it", async () => {
    const scan = secretScan();
    const stack = await startStack({
      chain: false,
      postgres: false,
      nats: { password: true },
      onOutput: scan.onOutput,
    });
    try {
      const { servers, user, pass } = natsConnection(stack.nats.natsUrl);
      expect({ servers, user, pass }).toMatchObject({ user: NATS_USER, pass: stack.nats.password });
      await expect(connect({ servers, maxReconnectAttempts: 0 })).rejects.toThrow(/authorization/i);
      await expect(connect({ servers, user, pass: "not-the-password" })).rejects.toThrow(
        /authorization/i,
      );

      const bus = await createJetStreamBus(stack.nats.natsUrl);
      try {
        const consumed = new Promise<string>((resolve) => {
          void bus.consume(
            "jobs.registration",
            { group: "finding-l4", ackWaitMs: 5_000, maxDeliver: 1 },
            async (message) => {
              await message.ack();
              resolve(new TextDecoder().decode(message.data));
            },
          );
        });
        await bus.publish("jobs.registration", "job-1", new TextEncoder().encode("a job"));
        expect(await consumed).toBe("a job");

        const heard = new Promise<string>((resolve) => {
          bus.listen(runTopic("run_1"), (data) => resolve(new TextDecoder().decode(data)));
        });
        // A notice is heard by whoever subscribed before it; the server has the subscription once
        // a round trip through it is done.
        await bus.publish("jobs.registration", "job-2", new TextEncoder().encode("a round trip"));
        bus.notify(runTopic("run_1"), new TextEncoder().encode("a delta"));
        expect(await heard).toBe("a delta");
      } finally {
        await bus.close();
      }
    } finally {
      await stack.stop();
    }
    expect(scan.leaks(stack), "secrets in the stack's output").toEqual([]);
  });
});
