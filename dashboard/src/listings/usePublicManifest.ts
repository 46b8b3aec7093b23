import { useQuery } from "@tanstack/react-query";
import { useClient } from "../session/SessionContext.tsx";

const IPFS_PREFIX = "ipfs://";

/** The public part of an agent's manifest, as registered (its prompt and keys are never in it). */
export type PublicManifest = Record<string, unknown> & {
  input_schema?: unknown;
  output_schema?: unknown;
};

/**
 * The listing and the public manifest of its shown version (served at `/ipfs/`); the manifest is
 * null for a listing whose manifest is not one the API serves.
 */
export function usePublicManifest(listingId: string) {
  const client = useClient();
  const listing = useQuery({
    queryKey: ["listing", listingId],
    queryFn: () => client.listings.get(listingId),
    enabled: listingId !== "",
  });
  const uri = listing.data?.shown_metadata_uri;
  const manifest = useQuery({
    queryKey: ["manifest", uri],
    queryFn: async (): Promise<PublicManifest | null> => {
      if (!uri?.startsWith(IPFS_PREFIX)) return null;
      const response = await fetch(`/ipfs/${encodeURIComponent(uri.slice(IPFS_PREFIX.length))}`);
      if (!response.ok) throw new Error(`The agent's manifest did not load (${response.status})`);
      return (await response.json()) as PublicManifest;
    },
    enabled: uri !== undefined,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return {
    listing: listing.data,
    manifest: manifest.data,
    pending: listingId !== "" && (listing.isPending || manifest.isPending),
    error: listing.error ?? manifest.error,
  };
}
