// What became of registration jobs, read from app.jobs, app.agents and the workers' logs: whether
// every accepted job completed, exactly once.
import { count, eq, inArray } from "drizzle-orm";
import type { HDAccount } from "viem/accounts";
import { expect } from "vitest";
import type { Stack } from "../../devStack/startStack.ts";
import { agentSecrets, agents, jobs } from "../../lib/db/appSchema.ts";
import type { captureOutput } from "./processOutput.ts";
import { until } from "./registration.ts";

export type JobRow = {
  id: string;
  status: string;
  result: unknown;
  error: unknown;
  updatedAt: Date;
  publishedAt: Date | null;
};

export type RegistrationResult = {
  agent_id: string;
  listing_id: string;
  create_listing: { seed: string; metadata_uri: string; on_chain_listing_id: string };
};

/** Reads the jobs of the stack at `stack()`, and what its workers printed into `output`. */
export function registrationJobs(stack: () => Stack, output: ReturnType<typeof captureOutput>) {
  async function jobRows(ids: string[]): Promise<JobRow[]> {
    return stack()
      .db.select({
        id: jobs.id,
        status: jobs.status,
        result: jobs.result,
        error: jobs.error,
        updatedAt: jobs.updatedAt,
        publishedAt: jobs.publishedAt,
      })
      .from(jobs)
      .where(inArray(jobs.id, ids));
  }

  /** Waits until none of `ids` is queued; returns their rows. */
  async function settled(ids: string[], timeoutMs = 90_000): Promise<JobRow[]> {
    return until(
      `${ids.length} jobs to settle`,
      async () => {
        const rows = await jobRows(ids);
        return rows.length === ids.length && rows.every((row) => row.status !== "queued")
          ? rows
          : undefined;
      },
      timeoutMs,
    );
  }

  /** "registration processed" lines of the worker processes: job id and outcome. */
  function processedLines(): { jobId: string; outcome: string }[] {
    return output
      .entries()
      .filter((entry) => entry.message === "registration processed")
      .map((entry) => ({ jobId: entry.job_id as string, outcome: entry.outcome as string }));
  }

  /**
   * Every job completed, once: its own agent, its own sealed secret, distinct listing ids, no other
   * agent for `creator`, and no worker ever reported completing it twice.
   */
  async function expectCompletedExactlyOnce(creator: HDAccount, ids: string[]) {
    const rows = await settled(ids);
    for (const row of rows)
      expect({ id: row.id, status: row.status, error: row.error }).toEqual({
        id: row.id,
        status: "completed",
        error: null,
      });
    const results = rows.map((row) => row.result as RegistrationResult);
    const agentIds = results.map((result) => result.agent_id);
    const listingIds = results.map((result) => result.create_listing.on_chain_listing_id);
    expect(new Set(agentIds).size).toBe(ids.length);
    expect(new Set(listingIds).size).toBe(ids.length);
    expect(new Set(results.map((result) => result.listing_id)).size).toBe(ids.length);

    const stored = await stack()
      .db.select({ agentId: agents.agentId, listing: agents.onChainListingId })
      .from(agents)
      .where(eq(agents.creator, creator.address.toLowerCase()));
    expect(stored.map((agent) => agent.agentId).sort()).toEqual([...agentIds].sort());
    const [secrets] = await stack()
      .db.select({ n: count() })
      .from(agentSecrets)
      .where(inArray(agentSecrets.onChainListingId, listingIds));
    expect(secrets?.n).toBe(ids.length);

    const completions = processedLines().filter(
      (line) => line.outcome === "completed" && ids.includes(line.jobId),
    );
    expect(completions.length).toBeLessThanOrEqual(ids.length);
    expect(new Set(completions.map((line) => line.jobId)).size).toBe(completions.length);
    return rows;
  }

  return { jobRows, settled, processedLines, expectCompletedExactlyOnce };
}
