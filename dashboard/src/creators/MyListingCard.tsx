import type { CreatorListing } from "@service/sdk";
import type { Hex } from "viem";
import { TransactionProgress } from "../chain/TransactionProgress.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { runsText } from "../listings/runsText.ts";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { formatEth, RENTAL_MODEL_NAMES } from "../ui/formatting.ts";
import { RepriceForm } from "./RepriceForm.tsx";

/** One of the creator's listings: its books, as the API last sent them, and what the creator may do. */
export function MyListingCard({ listing }: { listing: CreatorListing }) {
  const client = useClient();
  const { address, abi, write } = useMarketplaceWrite();
  const transaction = useMarketplaceTransaction();
  const onChainId = listing.on_chain_id as Hex;
  const { status, escrow_wei: escrow } = listing;

  /** Done once the API's index shows the listing in `expected` status. */
  const indexedAs = (expected: string) => async () =>
    (await client.listings.get(listing.id)).status === expected;
  const withdraw = () =>
    transaction.run(
      () => write({ address, abi, functionName: "withdrawEarnings", args: [onChainId, escrow] }),
      async () => true,
    );
  const setActive = (active: boolean) =>
    transaction.run(
      () => write({ address, abi, functionName: "setListingActive", args: [onChainId, active] }),
      indexedAs(active ? "active" : "paused"),
    );
  // A paused listing is closed with what its escrow holds in one transaction; an active one only
  // once its escrow is empty.
  const close = () =>
    transaction.run(
      () =>
        status === "paused"
          ? write({ address, abi, functionName: "withdrawAndClose", args: [onChainId] })
          : write({ address, abi, functionName: "closeListing", args: [onChainId] }),
      indexedAs("closed"),
    );

  return (
    <li className="card">
      <h2>
        <Link href={`/listings/${listing.id}`}>{listing.title ?? listing.id}</Link>
      </h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="listing-status">{status}</dd>
        <dt>Price</dt>
        <dd data-testid="price">
          {formatEth(listing.price_wei)} ({RENTAL_MODEL_NAMES[listing.rental_model]})
        </dd>
        <dt>Purchases</dt>
        <dd data-testid="purchases">{listing.purchases}</dd>
        <dt>Escrow</dt>
        <dd data-testid="escrow">{formatEth(escrow)}</dd>
        <dt>Earned</dt>
        <dd data-testid="earned">{formatEth(listing.earned_wei)}</dd>
        <dt>Withdrawn</dt>
        <dd data-testid="withdrawn">{formatEth(listing.withdrawn_wei)}</dd>
        <dt>Runs</dt>
        <dd data-testid="runs">{runsText(listing)}</dd>
      </dl>
      <div className="actions">
        <button type="button" disabled={transaction.busy || !escrow} onClick={withdraw}>
          Withdraw {escrow ? formatEth(escrow) : ""}
        </button>
        {status !== "closed" && (
          <>
            <button
              type="button"
              disabled={transaction.busy}
              onClick={() => setActive(status === "paused")}
            >
              {status === "paused" ? "Resume" : "Pause"}
            </button>
            <button type="button" className="danger" disabled={transaction.busy} onClick={close}>
              {status === "paused" && escrow ? "Withdraw and close" : "Close"}
            </button>
          </>
        )}
      </div>
      <TransactionProgress transaction={transaction} />
      {status !== "closed" && (
        <>
          <RepriceForm listing={listing} />
          {listing.title !== null && (
            <p>
              <Link href={`/my-listings/${listing.id}/new-version`}>Publish a new version</Link>
            </p>
          )}
        </>
      )}
    </li>
  );
}
