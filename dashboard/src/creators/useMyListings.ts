import type { CreatorListing } from "@service/sdk";
import { useEffect, useState } from "react";
import { useClient } from "../session/SessionContext.tsx";

/** After a stream broke off or was refused, the next is opened this much later. */
const REOPEN_MS = 2_000;

/**
 * The connected creator's listings as the API's stream sends them: again after every change the
 * indexer records (a purchase, a run, a withdrawal), without asking. A broken stream is opened again.
 */
export function useMyListings() {
  const client = useClient();
  const [state, setState] = useState<{ listings?: CreatorListing[]; error?: unknown }>({});
  useEffect(() => {
    const stop = new AbortController();
    (async () => {
      while (!stop.signal.aborted) {
        try {
          for await (const listings of client.creators.watchMyListings({ signal: stop.signal })) {
            setState({ listings });
          }
        } catch (error) {
          if (!stop.signal.aborted) setState((previous) => ({ ...previous, error }));
        }
        await new Promise((resolve) => setTimeout(resolve, REOPEN_MS));
      }
    })();
    return () => stop.abort();
  }, [client]);
  return state;
}
