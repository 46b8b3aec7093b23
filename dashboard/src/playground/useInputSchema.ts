import { useQuery } from "@tanstack/react-query";
import { useClient } from "../session/SessionContext.tsx";

const IPFS_PREFIX = "ipfs://";

/**
 * The `input_schema` of the listing's shown version, from its public manifest (served at `/ipfs/`);
 * null for a listing whose manifest is not one the API serves.
 */
export function useInputSchema(listingId: string) {
  const client = useClient();
  const listing = useQuery({
    queryKey: ["listing", listingId],
    queryFn: () => client.listings.get(listingId),
    enabled: listingId !== "",
  });
  const uri = listing.data?.shown_metadata_uri;
  const manifest = useQuery({
    queryKey: ["manifest", uri],
    queryFn: async (): Promise<unknown> => {
      if (!uri?.startsWith(IPFS_PREFIX)) return null;
      const response = await fetch(`/ipfs/${encodeURIComponent(uri.slice(IPFS_PREFIX.length))}`);
      if (!response.ok) throw new Error(`The agent's manifest did not load (${response.status})`);
      const body = (await response.json()) as { input_schema?: unknown };
      return body.input_schema ?? null;
    },
    enabled: uri !== undefined,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return {
    schema: manifest.data,
    pending: listingId !== "" && (listing.isPending || manifest.isPending),
    error: listing.error ?? manifest.error,
  };
}
