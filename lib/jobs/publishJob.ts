import { eq } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { jobs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";

export const REGISTRATION_SUBJECT = "jobs.registration";

/**
 * Hands a stored job to the bus (message id = job id, so a repeat is dropped) and records that the
 * bus has it. A failure leaves `published_at` null for the outbox relay to repair.
 */
export async function publishJob(db: Database, bus: Bus, jobId: string): Promise<void> {
  await bus.publish(REGISTRATION_SUBJECT, jobId, new TextEncoder().encode(jobId));
  await db.update(jobs).set({ publishedAt: new Date() }).where(eq(jobs.id, jobId));
}
