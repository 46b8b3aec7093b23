-- Run history, newest first: a renter's runs (GET /v1/runs) and a listing's (GET /v1/creators/me/runs),
-- keyset-paged on (created_at, id).
CREATE INDEX "runs_wallet_created_at_id_index" ON "app"."runs" USING btree ("wallet","created_at","id");--> statement-breakpoint
CREATE INDEX "runs_on_chain_listing_id_created_at_id_index" ON "app"."runs" USING btree ("on_chain_listing_id","created_at","id");