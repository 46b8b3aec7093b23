import type { Job } from "@service/sdk";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Hex } from "viem";
import { buildManifest } from "../creators/buildManifest.ts";
import { ListOnChainForm } from "../creators/ListOnChainForm.tsx";
import { ManifestEditor } from "../creators/ManifestEditor.tsx";
import { topLevelField } from "../creators/manifestFields.ts";
import { useClient } from "../session/SessionContext.tsx";
import { CopyButton } from "../ui/CopyButton.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

const STARTING_MANIFEST: Record<string, string> = {
  category: "coding",
  model: '{"provider": "self_hosted", "endpoint_url": "https://models.example.com/v1"}',
  input_schema: '{"type": "object"}',
  output_schema: '{"type": "object"}',
};

/** Registers an agent from its manifest, then lists it on-chain from the job's result. */
export function RegisterPage() {
  const client = useClient();
  const [values, setValues] = useState(STARTING_MANIFEST);
  const [jsonErrors, setJsonErrors] = useState<Record<string, string>>({});
  const registration = useMutation<Job, unknown, Record<string, unknown>>({
    mutationFn: async (manifest) =>
      client.jobs.wait((await client.agents.register(manifest)).job_id),
  });
  const job = registration.data;

  const problems: Record<string, string[]> = {};
  for (const [field, message] of Object.entries(jsonErrors)) problems[field] = [message];
  if (job?.status === "failed" && Array.isArray(job.error.violations)) {
    for (const violation of job.error.violations as { field: string; message: string }[]) {
      const field = topLevelField(violation.field);
      problems[field] = [...(problems[field] ?? []), `${violation.field}: ${violation.message}`];
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const built = buildManifest(values);
    if ("errors" in built) return setJsonErrors(built.errors);
    setJsonErrors({});
    registration.mutate(built.manifest);
  };

  return (
    <section aria-labelledby="register-title">
      <PageHeading id="register-title" title="Register an agent" />
      <form onSubmit={submit} className="playground" aria-label="Agent manifest">
        <ManifestEditor
          values={values}
          problems={problems}
          onChange={(name, value) => setValues({ ...values, [name]: value })}
        />
        <button type="submit" disabled={registration.isPending}>
          {registration.isPending ? "Checking the manifest…" : "Register"}
        </button>
      </form>
      <div aria-live="polite">
        <ErrorMessage error={registration.error} />
        {job?.status === "failed" && (
          <p className="error" role="alert">
            {job.error.message}
          </p>
        )}
        {job?.status === "completed" && job.result.create_listing && (
          <section aria-labelledby="registered-title" className="notice">
            <h2 id="registered-title">Registered: now list it</h2>
            {job.result.webhook_secret && (
              <p>
                <strong>Webhook secret, shown once:</strong> your entrypoint verifies calls with it.{" "}
                <code>{job.result.webhook_secret}</code>{" "}
                <CopyButton text={job.result.webhook_secret} what="the webhook secret" />
              </p>
            )}
            <ListOnChainForm
              listingId={job.result.listing_id}
              seed={job.result.create_listing.seed as Hex}
              metadataUri={job.result.create_listing.metadata_uri}
            />
          </section>
        )}
      </div>
    </section>
  );
}
