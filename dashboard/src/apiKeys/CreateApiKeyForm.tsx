import type { CreatedApiKey } from "@service/sdk";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { CreatedKeyNotice } from "./CreatedKeyNotice.tsx";

/** Creates a key with a label; the wallet signs to confirm it. */
export function CreateApiKeyForm() {
  const client = useClient();
  const queryClient = useQueryClient();
  const create = useMutation<CreatedApiKey, unknown, string>({
    mutationFn: (label) => client.apiKeys.create(label),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["api-keys"] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const label = String(new FormData(event.currentTarget).get("label") ?? "").trim();
    if (label) create.mutate(label);
  };
  return (
    <section aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <form onSubmit={submit} className="inline-form">
        <label>
          Label
          <input name="label" required maxLength={100} placeholder="e.g. billing server" />
        </label>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? "Confirm in your wallet…" : "Create key"}
        </button>
      </form>
      <ErrorMessage error={create.error} />
      {create.data && <CreatedKeyNotice created={create.data} />}
    </section>
  );
}
