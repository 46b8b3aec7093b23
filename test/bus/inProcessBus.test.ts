import { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import { describeBusContract } from "./busContract.ts";

describeBusContract("the in-process bus", async () => {
  const bus = createInProcessBus();
  return { bus, cleanup: () => bus.close() };
});
