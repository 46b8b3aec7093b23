import { startStack } from "../../devStack/startStack.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { describeBusContract } from "./busContract.ts";

// A NATS server per test: the contract's tests run concurrently, and the bus's streams are fixed.
describeBusContract("the NATS JetStream bus", async () => {
  const stack = await startStack({ chain: false, postgres: false, nats: true });
  const bus = await createJetStreamBus(stack.nats.natsUrl);
  return {
    bus,
    cleanup: async () => {
      await bus.close();
      await stack.stop();
    },
  };
});
