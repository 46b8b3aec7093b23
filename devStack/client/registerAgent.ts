/** What a completed registration job returns (`GET /v1/jobs/:job_id`, `result`). */
export type RegisteredAgent = {
  agent_id: string;
  listing_id: string;
  create_listing: { seed: `0x${string}`; metadata_uri: string; on_chain_listing_id: `0x${string}` };
  /** Connected agents only: the Standard Webhooks secret their calls are signed with. */
  webhook_secret?: string;
};

/**
 * Registers `manifest` as a creator does: `POST /v1/agents` with the creator's token, then its job
 * followed until it completes. A rejected manifest throws with the job's error.
 */
export async function registerAgent(
  apiUrl: string,
  token: string,
  manifest: object,
): Promise<RegisteredAgent> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const submitted = await fetch(`${apiUrl}/v1/agents`, {
    method: "POST",
    headers,
    body: JSON.stringify(manifest),
  });
  if (submitted.status !== 202) {
    throw new Error(`registration refused: ${submitted.status} ${await submitted.text()}`);
  }
  const { job_id: jobId } = (await submitted.json()) as { job_id: string };
  for (let attempt = 0; attempt < 300; attempt++) {
    const job = (await (await fetch(`${apiUrl}/v1/jobs/${jobId}`, { headers })).json()) as {
      status: string;
      result?: RegisteredAgent;
      error?: unknown;
    };
    if (job.status === "completed" && job.result) return job.result;
    if (job.status === "failed") throw new Error(`agent rejected: ${JSON.stringify(job.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`registration ${jobId} did not finish`);
}
