import type { Job } from "@service/sdk";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { buildManifest } from "./buildManifest.ts";
import { hostedProviderOf } from "./hostedProvider.ts";
import { ManifestEditor } from "./ManifestEditor.tsx";
import { topLevelField } from "./manifestFields.ts";
import { VendorKeyField } from "./VendorKeyField.tsx";

export type CompletedJob = Extract<Job, { status: "completed" }>;

/**
 * A manifest typed field by field (with the vendor's API key when its model runs on one), sent with
 * `send` and followed to its job's end: the rejected fields are marked, a completed job shows
 * `completed`. `extra` goes with the manifest as it is (a version keeps its listing's other fields).
 */
export function ManifestForm({
  initialValues,
  extra = {},
  submitText,
  send,
  completed,
}: {
  initialValues: Record<string, string>;
  extra?: Record<string, unknown>;
  submitText: string;
  send: (request: Record<string, unknown>) => Promise<Job>;
  completed: (job: CompletedJob) => ReactNode;
}) {
  const [values, setValues] = useState(initialValues);
  const [vendorKey, setVendorKey] = useState("");
  const [jsonErrors, setJsonErrors] = useState<Record<string, string>>({});
  const submission = useMutation<Job, unknown, Record<string, unknown>>({ mutationFn: send });
  const job = submission.data;
  const vendor = hostedProviderOf(values.model ?? "");

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
    const request = { ...extra, ...built.manifest };
    if (vendor && vendorKey) request.vendor_credentials = { api_key: vendorKey };
    submission.mutate(request, {
      onSuccess: (settled) => settled.status === "completed" && setVendorKey(""),
    });
  };

  return (
    <>
      <form onSubmit={submit} className="playground" aria-label="Agent manifest">
        <ManifestEditor
          values={values}
          problems={problems}
          onChange={(name, value) => setValues({ ...values, [name]: value })}
          after={{
            model: vendor && (
              <VendorKeyField
                vendor={vendor}
                value={vendorKey}
                problems={problems.vendor_credentials ?? []}
                onChange={setVendorKey}
              />
            ),
          }}
        />
        <button type="submit" disabled={submission.isPending}>
          {submission.isPending ? "Checking the manifest…" : submitText}
        </button>
      </form>
      <div aria-live="polite">
        <ErrorMessage error={submission.error} />
        {job?.status === "failed" && (
          <p className="error" role="alert">
            {job.error.message}
          </p>
        )}
        {job?.status === "completed" && completed(job)}
      </div>
    </>
  );
}
