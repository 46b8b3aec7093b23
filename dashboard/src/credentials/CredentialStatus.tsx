import type { CredentialFinality, RentalModel, CredentialStatus as Status } from "@service/sdk";
import type { Hex } from "viem";
import { FINALITY_DESCRIPTIONS } from "../ui/formatting.ts";
import { PerTaskBalance } from "./PerTaskBalance.tsx";
import { RenewForm } from "./RenewForm.tsx";
import { TopUpForm } from "./TopUpForm.tsx";

/**
 * A credential's state, how deep in the chain a valid one is (`finality`), and what can be done about
 * it: renew a subscription, top up a balance.
 */
export function CredentialStatus({
  listingId,
  onChainId,
  rentalModel,
  status,
  finality,
}: {
  listingId: string;
  onChainId: Hex;
  rentalModel: RentalModel;
  status: Status;
  finality?: CredentialFinality;
}) {
  return (
    <div className="credential">
      <p>
        Your credential:{" "}
        <strong className={`status status-${status}`}>{status.replace("_", " ")}</strong>
      </p>
      {finality && <p data-testid="finality">On-chain: {FINALITY_DESCRIPTIONS[finality]}</p>}
      {rentalModel === "subscription" && <RenewForm listingId={listingId} onChainId={onChainId} />}
      {rentalModel === "per_query" && (
        <>
          <PerTaskBalance onChainId={onChainId} />
          <TopUpForm listingId={listingId} onChainId={onChainId} />
        </>
      )}
    </div>
  );
}
