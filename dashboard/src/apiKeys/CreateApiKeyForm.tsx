import type { ApiKeyScope, CreatedApiKey } from "@service/sdk";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { CreatedKeyNotice } from "./CreatedKeyNotice.tsx";

/** The scopes offered, and whether a new key has each unless unticked: a renter's by default. */
const SCOPES: { scope: ApiKeyScope; label: string; checked: boolean }[] = [
  { scope: "run", label: "Run tasks", checked: true },
  { scope: "read", label: "Read listings, credentials and runs", checked: true },
  {
    scope: "create",
    label: "Act as a creator: register agents, read webhook secrets",
    checked: false,
  },
];

/** Creates a key with a label and scopes; the wallet signs a message naming both to confirm it. */
export function CreateApiKeyForm() {
  const client = useClient();
  const queryClient = useQueryClient();
  const create = useMutation<CreatedApiKey, unknown, { label: string; scopes: ApiKeyScope[] }>({
    mutationFn: ({ label, scopes }) => client.apiKeys.create(label, { scopes }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["api-keys"] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const label = String(form.get("label") ?? "").trim();
    const scopes = form.getAll("scope").map(String) as ApiKeyScope[];
    if (label && scopes.length > 0) create.mutate({ label, scopes });
  };
  return (
    <section aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <form onSubmit={submit} className="inline-form">
        <label>
          Label
          <input name="label" required maxLength={64} placeholder="e.g. billing server" />
        </label>
        <fieldset>
          <legend>What the key may do</legend>
          {SCOPES.map(({ scope, label, checked }) => (
            <label key={scope} className="inline">
              <input type="checkbox" name="scope" value={scope} defaultChecked={checked} />
              {label}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? "Confirm in your wallet…" : "Create key"}
        </button>
      </form>
      <ErrorMessage error={create.error} />
      {create.data && <CreatedKeyNotice created={create.data} />}
    </section>
  );
}
