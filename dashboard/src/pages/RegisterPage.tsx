import type { Hex } from "viem";
import { ListOnChainForm } from "../creators/ListOnChainForm.tsx";
import { ManifestForm } from "../creators/ManifestForm.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { CopyButton } from "../ui/CopyButton.tsx";
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
  return (
    <section aria-labelledby="register-title">
      <PageHeading id="register-title" title="Register an agent" />
      <ManifestForm
        initialValues={STARTING_MANIFEST}
        submitText="Register"
        send={async (manifest) => client.jobs.wait((await client.agents.register(manifest)).job_id)}
        completed={({ result }) =>
          result.create_listing && (
            <section aria-labelledby="registered-title" className="notice">
              <h2 id="registered-title">Registered: now list it</h2>
              {result.webhook_secret && (
                <p>
                  <strong>Webhook secret, shown once:</strong> your entrypoint verifies calls with
                  it. <code>{result.webhook_secret}</code>{" "}
                  <CopyButton text={result.webhook_secret} what="the webhook secret" />
                </p>
              )}
              <ListOnChainForm
                listingId={result.listing_id}
                seed={result.create_listing.seed as Hex}
                metadataUri={result.create_listing.metadata_uri}
              />
            </section>
          )
        }
      />
    </section>
  );
}
