// Runs the workers as a process of their own, consuming from NATS JetStream.
import { z } from "zod/v4";
import { createJetStreamBus } from "../lib/bus/jetStreamBus.ts";
import { sealingKey } from "../lib/crypto/sealingKey.ts";
import { connectProjections } from "../lib/db/projections.ts";
import { createLogger } from "../lib/log.ts";
import { parseEnvironment } from "../lib/parseEnvironment.ts";
import { startRegistrationWorker } from "./registration/registrationWorker.ts";

const env = parseEnvironment(
  z.object({
    DATABASE_URL: z.string().startsWith("postgres"),
    NATS_URL: z.string().startsWith("nats://"),
    DATA_DIR: z.string().default(".data"),
    VIEWS_SCHEMA: z.string().default("marketplace"),
    SEALING_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/)
      .optional(),
    WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
    REGISTRATION_ACK_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  }),
);

const log = createLogger("worker");
const { db, close } = connectProjections(env.DATABASE_URL, env.VIEWS_SCHEMA);
const bus = await createJetStreamBus(env.NATS_URL);
const registration = await startRegistrationWorker({
  db,
  bus,
  sealingKey: await sealingKey(env),
  log,
  concurrency: env.WORKER_CONCURRENCY,
  ackWaitMs: env.REGISTRATION_ACK_WAIT_MS,
});
log.info("workers started", { bus: "jetstream" });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await registration.stop();
    await bus.close();
    await close();
    process.exit(0);
  });
}
