import type { Credential } from "@service/sdk";
import { parseApiListingId } from "../chain/marketplace.ts";
import { Link } from "../routing/Link.tsx";
import { DateTime } from "../ui/DateTime.tsx";
import { RENTAL_MODEL_NAMES } from "../ui/formatting.ts";
import { PerTaskBalance } from "./PerTaskBalance.tsx";

export function CredentialCard({ credential }: { credential: Credential }) {
  const onChainId = parseApiListingId(credential.listing_id);
  return (
    <li className="card">
      <h2>
        <Link href={`/listings/${credential.listing_id}`}>{credential.listing_title}</Link>
      </h2>
      <dl className="facts">
        <dt>Rental</dt>
        <dd>{RENTAL_MODEL_NAMES[credential.rental_model]}</dd>
        <dt>Status</dt>
        <dd>
          <strong className={`status status-${credential.status}`}>
            {credential.status.replace("_", " ")}
          </strong>
        </dd>
        <dt>Bought</dt>
        <dd>
          <DateTime iso={credential.purchased_at} />
        </dd>
        {credential.rental_model === "subscription" && (
          <>
            <dt>Expires</dt>
            <dd data-testid="expires">
              <DateTime iso={credential.expires_at} />
            </dd>
          </>
        )}
      </dl>
      {credential.rental_model === "per_query" && onChainId && (
        <PerTaskBalance onChainId={onChainId} />
      )}
      <p className="actions">
        <Link href={`/listings/${credential.listing_id}`}>
          {credential.rental_model === "one_time"
            ? "Details"
            : credential.rental_model === "subscription"
              ? "Renew"
              : "Top up"}
        </Link>
        <Link href={`/playground?agent=${credential.listing_id}`}>Playground</Link>
      </p>
    </li>
  );
}
