import type { Credential } from "@service/sdk";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import { parseApiListingId } from "../chain/marketplace.ts";
import { PerTaskBalance } from "../credentials/PerTaskBalance.tsx";
import { TopUpForm } from "../credentials/TopUpForm.tsx";
import { usePublicManifest } from "../listings/usePublicManifest.ts";
import { InputEditor } from "../playground/InputEditor.tsx";
import { RunOutput } from "../playground/RunOutput.tsx";
import { RunResult } from "../playground/RunResult.tsx";
import { formFieldsOf } from "../playground/schemaForm.ts";
import { ToolDefinition } from "../playground/ToolDefinition.tsx";
import { useRunInput } from "../playground/useRunInput.ts";
import { useStreamedRun } from "../playground/useStreamedRun.ts";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

/** Runs a task on a rented agent, its output streamed in as the agent writes it. */
export function PlaygroundPage({ agentId }: { agentId: string | null }) {
  const client = useClient();
  const credentials = useQuery({
    queryKey: ["credentials"],
    queryFn: () => client.credentials.list({ limit: 100 }),
  });
  const [chosen, setChosen] = useState(agentId ?? "");
  const run = useStreamedRun();
  const rented = credentials.data?.credentials ?? [];
  const selected = chosen || rented[0]?.listing_id || "";
  const credential: Credential | undefined = rented.find((item) => item.listing_id === selected);
  const onChainId = parseApiListingId(selected);
  const agent = usePublicManifest(selected);
  const fields = useMemo(() => formFieldsOf(agent.manifest?.input_schema), [agent.manifest]);
  const input = useRunInput(fields);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const built = input.read();
    if (built === null) return;
    run.start({ agent_id: selected, task: String(form.get("task") ?? ""), input: built });
  };

  return (
    <section aria-labelledby="playground-title">
      <PageHeading id="playground-title" title="Playground" />
      {credentials.isPending && <Loading label="Loading your rented agents" />}
      <ErrorMessage error={credentials.error} />
      {credentials.data && rented.length === 0 && !agentId && (
        <p>
          Rent an agent in the <Link href="/">catalogue</Link> to run tasks here.
        </p>
      )}
      <form onSubmit={submit} className="playground" aria-label="Run a task">
        <label>
          Agent
          <select value={selected} onChange={(event) => setChosen(event.target.value)}>
            {agentId && !credential && <option value={agentId}>{agentId}</option>}
            {rented.map((item) => (
              <option key={item.listing_id} value={item.listing_id}>
                {item.listing_title} ({item.status.replace("_", " ")})
              </option>
            ))}
          </select>
        </label>
        {credential?.rental_model === "per_query" && onChainId && (
          <PerTaskBalance onChainId={onChainId} />
        )}
        <label>
          Task
          <textarea name="task" required rows={4} maxLength={10_000} />
        </label>
        {agent.pending && <Loading label="Loading the agent's input form" />}
        <ErrorMessage error={agent.error} />
        <InputEditor input={input} />
        <div className="actions">
          <button type="submit" disabled={run.running || !selected}>
            {run.running ? "Running…" : "Run task"}
          </button>
          {run.running && (
            <button type="button" onClick={run.stop}>
              Stop reading
            </button>
          )}
        </div>
      </form>
      <section aria-labelledby="output-title">
        <h2 id="output-title">Output</h2>
        <RunOutput
          text={run.output}
          placeholder={
            run.running
              ? "Waiting for the agent…"
              : run.end || run.error
                ? ""
                : "No run yet: the output shows here."
          }
          completed={run.end?.status === "completed"}
          outputSchema={agent.manifest?.output_schema}
        />
        {run.end && <RunResult end={run.end} />}
        <ErrorMessage
          error={run.error}
          action={(code) =>
            code === "insufficient_balance" && onChainId ? (
              <TopUpForm listingId={selected} onChainId={onChainId} />
            ) : code === "credential_expired" || code === "credential_not_found" ? (
              <Link href={`/listings/${selected}`}>Open the listing</Link>
            ) : null
          }
        />
      </section>
      <ToolDefinition />
    </section>
  );
}
