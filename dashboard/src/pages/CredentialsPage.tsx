import { useQuery } from "@tanstack/react-query";
import { CredentialCard } from "../credentials/CredentialCard.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Loading } from "../ui/Loading.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";

export function CredentialsPage() {
  const client = useClient();
  const list = useQuery({
    queryKey: ["credentials"],
    queryFn: () => client.credentials.list({ limit: 100 }),
  });
  return (
    <section aria-labelledby="credentials-title">
      <PageHeading id="credentials-title" title="My credentials" />
      {list.isPending && <Loading label="Loading your credentials" />}
      <ErrorMessage error={list.error} />
      {list.data?.total === 0 && <p>You rent no agent yet: find one in the catalogue.</p>}
      <ul className="cards">
        {list.data?.credentials.map((credential) => (
          <CredentialCard key={credential.listing_id} credential={credential} />
        ))}
      </ul>
    </section>
  );
}
