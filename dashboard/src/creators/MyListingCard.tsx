import { useQuery } from "@tanstack/react-query";
import type { Hex } from "viem";
import { toApiListingId } from "../chain/marketplace.ts";
import { TransactionProgress } from "../chain/TransactionProgress.tsx";
import { useMarketplaceTransaction } from "../chain/useMarketplaceTransaction.ts";
import { useMarketplaceWrite } from "../chain/useMarketplaceWrite.ts";
import { useOnChainListing } from "../chain/useOnChainListing.ts";
import { runsText } from "../listings/runsText.ts";
import { Link } from "../routing/Link.tsx";
import { useClient } from "../session/SessionContext.tsx";
import { formatEth } from "../ui/formatting.ts";
import { usePurchaseCount } from "./usePurchaseCount.ts";

/** The API's figures lag the chain by the indexer: they are read again this often too. */
const REFRESH_MS = 3_000;
const STATUSES = ["none", "active", "paused", "closed"] as const;

/** One of the creator's listings: its books and what the creator may do with it. */
export function MyListingCard({ onChainId }: { onChainId: Hex }) {
  const client = useClient();
  const listingId = toApiListingId(onChainId);
  const detail = useQuery({
    queryKey: ["listing", listingId],
    queryFn: () => client.listings.get(listingId),
    refetchInterval: REFRESH_MS,
  });
  const { listing } = useOnChainListing(onChainId);
  const purchases = usePurchaseCount(onChainId);
  const { address, abi, write } = useMarketplaceWrite();
  const transaction = useMarketplaceTransaction();
  const status = listing?.status === undefined ? undefined : STATUSES[listing.status];
  const escrow = listing?.escrow;

  /** Done once the API's index shows the listing in `expected` status. */
  const indexedAs = (expected: string) => async () =>
    (await client.listings.get(listingId)).status === expected;

  const title = detail.data?.title ?? listingId;
  return (
    <li className="card">
      <h2>
        <Link href={`/listings/${listingId}`}>{title}</Link>
      </h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="listing-status">{status ?? "…"}</dd>
        <dt>Purchases</dt>
        <dd data-testid="purchases">{purchases.data ?? "…"}</dd>
        <dt>Escrow</dt>
        <dd data-testid="escrow">{escrow === undefined ? "…" : formatEth(escrow)}</dd>
        <dt>Runs</dt>
        <dd>{detail.data ? runsText(detail.data) : "…"}</dd>
      </dl>
      <div className="actions">
        <button
          type="button"
          disabled={transaction.busy || !escrow}
          onClick={() =>
            transaction.run(
              () =>
                write({
                  address,
                  abi,
                  functionName: "withdrawEarnings",
                  args: [onChainId, escrow ?? 0n],
                }),
              async () => true,
            )
          }
        >
          Withdraw {escrow ? formatEth(escrow) : ""}
        </button>
        {status === "active" && (
          <button
            type="button"
            disabled={transaction.busy}
            onClick={() =>
              transaction.run(
                () =>
                  write({
                    address,
                    abi,
                    functionName: "setListingActive",
                    args: [onChainId, false],
                  }),
                indexedAs("paused"),
              )
            }
          >
            Pause
          </button>
        )}
        {status === "paused" && (
          <button
            type="button"
            disabled={transaction.busy}
            onClick={() =>
              transaction.run(
                () =>
                  write({
                    address,
                    abi,
                    functionName: "setListingActive",
                    args: [onChainId, true],
                  }),
                indexedAs("active"),
              )
            }
          >
            Resume
          </button>
        )}
        {status !== "closed" && (
          <button
            type="button"
            className="danger"
            disabled={transaction.busy}
            onClick={() =>
              transaction.run(
                () => write({ address, abi, functionName: "closeListing", args: [onChainId] }),
                indexedAs("closed"),
              )
            }
          >
            Close
          </button>
        )}
      </div>
      <TransactionProgress
        stage={transaction.stage}
        hash={transaction.hash}
        error={transaction.error}
      />
    </li>
  );
}
