import { useState } from "react";
import { MakeVersionCurrentForm } from "../creators/MakeVersionCurrentForm.tsx";
import { ManifestForm } from "../creators/ManifestForm.tsx";
import { editorValuesOf, fieldsBeyondTheEditor } from "../creators/manifestValues.ts";
import { type PublicManifest, usePublicManifest } from "../listings/usePublicManifest.ts";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { CopyButton } from "../ui/CopyButton.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

/**
 * A new version of one of the creator's agents: its public manifest to start from (the prompt or
 * entrypoint and the vendor key are typed again: they are never sent back), registered beside the
 * current one, then made current with `updateListing`.
 */
export function NewVersionPage({ listingId }: { listingId: string }) {
  const client = useClient();
  const { listing, manifest: shown, pending, error } = usePublicManifest(listingId);
  // The version the form started from: making the new one current changes the shown version, and
  // the form, with its job and transaction, stays.
  const [manifest, setManifest] = useState<PublicManifest | null>();
  if (manifest === undefined && shown !== undefined) setManifest(shown);
  const title = `New version of ${listing?.title ?? "the agent"}`;
  return (
    <section aria-labelledby="new-version-title">
      <PageHeading id="new-version-title" title={title} />
      <p>
        <Link href="/my-listings">Back to my listings</Link>
      </p>
      {pending && !manifest && <Loading label="Loading the agent's manifest" />}
      <ErrorMessage error={error} />
      {manifest === null && (
        <p>This listing's manifest is not one the marketplace holds: it has no version to edit.</p>
      )}
      {manifest && (
        <>
          <p className="hint">
            The system prompt or entrypoint URL and the vendor's API key are never shown back: type
            them again. Renters keep the current version until you make this one current.
          </p>
          <ManifestForm
            initialValues={editorValuesOf(manifest)}
            extra={fieldsBeyondTheEditor(manifest)}
            submitText="Register the version"
            send={async (request) =>
              client.jobs.wait((await client.agents.registerVersion(listingId, request)).job_id)
            }
            completed={({ result }) =>
              result.update_listing && (
                <section aria-labelledby="version-registered-title" className="notice">
                  <h2 id="version-registered-title">Version registered: now make it current</h2>
                  {result.webhook_secret && (
                    <p>
                      <strong>This version's webhook secret, shown once:</strong>{" "}
                      <code>{result.webhook_secret}</code>{" "}
                      <CopyButton text={result.webhook_secret} what="the webhook secret" />
                    </p>
                  )}
                  <MakeVersionCurrentForm listingId={listingId} update={result.update_listing} />
                </section>
              )
            }
          />
        </>
      )}
    </section>
  );
}
