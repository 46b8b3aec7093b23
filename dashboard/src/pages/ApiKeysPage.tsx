import { useQuery } from "@tanstack/react-query";
import { ApiKeyRow } from "../apiKeys/ApiKeyRow.tsx";
import { CreateApiKeyForm } from "../apiKeys/CreateApiKeyForm.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

export function ApiKeysPage() {
  const client = useClient();
  const keys = useQuery({ queryKey: ["api-keys"], queryFn: () => client.apiKeys.list() });
  return (
    <section aria-labelledby="keys-title">
      <PageHeading id="keys-title" title="API keys" />
      <p>
        Keys let your servers call the API as your wallet. Send one as{" "}
        <code>Authorization: Bearer …</code>.
      </p>
      <CreateApiKeyForm />
      <h2>Your keys</h2>
      {keys.isPending && <Loading label="Loading your keys" />}
      <ErrorMessage error={keys.error} />
      {keys.data?.length === 0 && <p>No keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((apiKey) => (
                <ApiKeyRow key={apiKey.id} apiKey={apiKey} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
