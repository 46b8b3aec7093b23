import type { ApiKey } from "@service/sdk";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useClient } from "../session/SessionContext.tsx";
import { DateTime } from "../ui/DateTime.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";

/** One key; revoking it asks for a confirmation first. */
export function ApiKeyRow({ apiKey }: { apiKey: ApiKey }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: () => client.apiKeys.revoke(apiKey.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["api-keys"] }),
  });
  return (
    <tr>
      <td>{apiKey.label}</td>
      <td>
        <code>{apiKey.preview}…</code>
      </td>
      <td>{apiKey.scopes.join(", ")}</td>
      <td>
        <DateTime iso={apiKey.created_at} />
      </td>
      <td>
        {apiKey.revoked_at ? (
          <>
            Revoked <DateTime iso={apiKey.revoked_at} />
          </>
        ) : confirming ? (
          <span className="confirm">
            Revoke “{apiKey.label}”? Requests with it fail at once.{" "}
            <button
              type="button"
              className="danger"
              onClick={() => revoke.mutate()}
              disabled={revoke.isPending}
            >
              Yes, revoke
            </button>{" "}
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button
            type="button"
            onClick={() => setConfirming(true)}
            aria-label={`Revoke ${apiKey.label}`}
          >
            Revoke
          </button>
        )}
        <ErrorMessage error={revoke.error} />
      </td>
    </tr>
  );
}
