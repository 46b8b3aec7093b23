import { useQuery } from "@tanstack/react-query";
import { Link } from "../routing/Link.tsx";
import { ReceiptSection } from "../runs/ReceiptSection.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { formatEth } from "../ui/formatting.ts";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

/** One of the wallet's runs: its result, and its receipt checked against the chain. */
export function RunPage({ runId }: { runId: string }) {
  const client = useClient();
  const run = useQuery({ queryKey: ["run", runId], queryFn: () => client.runs.get(runId) });
  return (
    <article aria-labelledby="run-title">
      <PageHeading id="run-title" title="Run" />
      <p>
        <Link href="/runs">All your runs</Link>
      </p>
      {run.isPending && <Loading label="Loading the run" />}
      <ErrorMessage error={run.error} />
      {run.data && (
        <dl className="facts" aria-label="Run">
          <dt>Run id</dt>
          <dd>
            <code>{run.data.run_id}</code>
          </dd>
          <dt>Agent</dt>
          <dd>
            <Link href={`/listings/${run.data.agent_id}`}>{run.data.agent_id}</Link>
          </dd>
          <dt>Status</dt>
          <dd className={`run-${run.data.status}`}>{run.data.status}</dd>
          <dt>Cost</dt>
          <dd>{formatEth(run.data.cost_wei)}</dd>
          <dt>Duration</dt>
          <dd>
            {run.data.duration_ms === null ? "—" : `${(run.data.duration_ms / 1000).toFixed(2)} s`}
          </dd>
        </dl>
      )}
      <ReceiptSection runId={runId} />
    </article>
  );
}
