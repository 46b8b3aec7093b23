import { formatEth } from "../ui/formatting.ts";
import type { RunEnd } from "./useStreamedRun.ts";

export function RunResult({ end }: { end: RunEnd }) {
  return (
    <dl className="facts" aria-label="Run result">
      <dt>Status</dt>
      <dd>{end.status}</dd>
      <dt>Cost</dt>
      <dd>{formatEth(end.cost_wei)}</dd>
      <dt>Duration</dt>
      <dd>{(end.duration_ms / 1000).toFixed(2)} s</dd>
      <dt>Run id</dt>
      <dd>
        <code>{end.run_id}</code>
      </dd>
    </dl>
  );
}
