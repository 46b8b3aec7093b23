-- Each requester's unused challenges for a wallet are its own budget (api/auth/challenges.ts). The
-- challenges issued before this carry no requester; they live minutes, so they go now.
DELETE FROM "app"."auth_challenges";--> statement-breakpoint
ALTER TABLE "app"."auth_challenges" ADD COLUMN "requester" text NOT NULL;--> statement-breakpoint
CREATE INDEX "auth_challenges_wallet_requester_index" ON "app"."auth_challenges" USING btree ("wallet","requester");
