import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { startTestNats } from "../harness/harness.ts";
import { describeBusContract } from "./busContract.ts";

describeBusContract("the NATS JetStream bus", async () => {
  const nats = await startTestNats();
  const bus = await createJetStreamBus(nats.natsUrl);
  return {
    bus,
    cleanup: async () => {
      await bus.close();
      await nats.stop();
    },
  };
});
