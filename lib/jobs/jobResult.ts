/** The call a creator sends next, with its arguments, as a completed job gives it. */
type ListingCall<Fields> = Fields & { on_chain_listing_id: string; metadata_uri: string };

/** What a completed job made, as `GET /v1/jobs/:job_id` reports it. */
export type JobResult = { agent_id: string; listing_id: string } & (
  | { create_listing: ListingCall<{ seed: string }> }
  | { update_listing: ListingCall<{ price: string | null }> }
);
