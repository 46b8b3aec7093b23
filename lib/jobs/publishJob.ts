import { sql } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { jobs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";

export const REGISTRATION_SUBJECT = "jobs.registration";

/**
 * Hands a stored job to the bus (message id = job id, so a repeat is dropped) and records that the
 * bus has it. A failure leaves `published_at` null for the outbox relay to repair. A job a worker
 * already holds is left alone rather than waited for: it is being processed, so it was delivered.
 */
export async function publishJob(db: Database, bus: Bus, jobId: string): Promise<void> {
  await bus.publish(REGISTRATION_SUBJECT, jobId, new TextEncoder().encode(jobId));
  await db.execute(sql`
    update ${jobs} set published_at = now()
    where id = (select id from ${jobs} where id = ${jobId} for update skip locked)`);
}
