import {
  type ReceiptDocument,
  type ReceiptVerification,
  ServiceAPIError,
  verifyReceipt,
} from "@service/sdk";
import { useQuery } from "@tanstack/react-query";
import { useDashboardConfig } from "../config/ConfigContext.tsx";
import { useClient } from "../session/SessionContext.tsx";

/** How often a receipt still pending is asked for again. */
const PENDING_POLL_MS = 5_000;

/** Where a run's receipt stands, as the dashboard checked it against the chain. */
export type ReceiptCheck =
  /** The API has no receipt yet (409): the run's cost is not final. */
  | { state: "not-final" }
  /** No public RPC endpoint to check it against. */
  | { state: "unchecked"; document: ReceiptDocument }
  | { state: "checked"; document: ReceiptDocument; result: ReceiptVerification };

/**
 * The run's receipt from the API, checked in the browser against the configured chain and marketplace
 * (never against what the API says of them); asked again while it is not final or not anchored.
 */
export function useReceiptCheck(runId: string) {
  const client = useClient();
  const { rpc_url: rpcUrl, marketplace } = useDashboardConfig();
  return useQuery({
    queryKey: ["receipt", runId],
    queryFn: async (): Promise<ReceiptCheck> => {
      let document: ReceiptDocument;
      try {
        document = await client.runs.receipt(runId);
      } catch (error) {
        if (error instanceof ServiceAPIError && error.status === 409) return { state: "not-final" };
        throw error;
      }
      if (!rpcUrl) return { state: "unchecked", document };
      const result = await verifyReceipt(document, { rpcUrl, contract: marketplace });
      return { state: "checked", document, result };
    },
    refetchInterval: (query) => (isPending(query.state.data) ? PENDING_POLL_MS : false),
  });
}

export function isPending(check: ReceiptCheck | undefined): boolean {
  return check?.state === "not-final" || (check !== undefined && check.document.anchor === null);
}
