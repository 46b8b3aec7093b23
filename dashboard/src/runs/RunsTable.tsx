import type { RunListItem } from "@service/sdk";
import { Link } from "../routing/Link.tsx";
import { DateTime } from "../ui/DateTime.tsx";
import { formatEth } from "../ui/formatting.ts";

/** A listing id short enough for a table cell: `lst_1a2b3c…9f0e`. */
const shortId = (id: string) => (id.length > 16 ? `${id.slice(0, 10)}…${id.slice(-4)}` : id);

/** Runs as a table, newest first as the API sends them; agents named by `titles` where known. */
export function RunsTable({
  runs,
  titles,
  caption,
}: {
  runs: RunListItem[];
  titles: Map<string, string>;
  caption: string;
}) {
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Agent</th>
            <th scope="col">Status</th>
            <th scope="col">Cost</th>
            <th scope="col">Duration</th>
            <th scope="col">Run id</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.run_id}>
              <td>
                <DateTime iso={run.created_at} />
              </td>
              <td>
                <Link href={`/listings/${run.agent_id}`}>
                  {titles.get(run.agent_id) ?? shortId(run.agent_id)}
                </Link>
              </td>
              <td className={`run-${run.status}`}>{run.status}</td>
              <td>{formatEth(run.cost_wei)}</td>
              <td>{run.duration_ms === null ? "—" : `${(run.duration_ms / 1000).toFixed(2)} s`}</td>
              <td>
                <Link href={`/runs/${encodeURIComponent(run.run_id)}`}>
                  <code>{run.run_id}</code>
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
