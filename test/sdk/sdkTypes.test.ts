// The SDK's types against the schemas the API answers with (api/openapi/responseSchemas.ts): checked
// by `tsc --noEmit` in `npm run check`, so neither side can drift alone. Wei amounts differ on
// purpose: the SDK reads them as bigint.
import { expectTypeOf, it } from "vitest";
import type { z } from "zod/v4";
import type * as answers from "../../api/openapi/responseSchemas.ts";
import type * as sdk from "../../sdk/src/index.ts";

type Answer<T extends z.ZodType> = z.output<T>;
type WithBigintWei<T> = { [K in keyof T]: K extends "cost_wei" ? bigint : T[K] };

it("describes the API's answers as the API gives them", () => {
  expectTypeOf<Answer<typeof answers.listingSummary>>().toMatchTypeOf<sdk.ListingSummary>();
  expectTypeOf<sdk.ListingSummary>().toMatchTypeOf<Answer<typeof answers.listingSummary>>();
  expectTypeOf<Answer<typeof answers.listing>>().toMatchTypeOf<sdk.Listing>();
  expectTypeOf<sdk.Listing>().toMatchTypeOf<Answer<typeof answers.listing>>();
  expectTypeOf<Answer<typeof answers.searchResult>>().toMatchTypeOf<sdk.SearchResult>();
  expectTypeOf<Answer<typeof answers.credentialList>>().toMatchTypeOf<sdk.CredentialList>();
  expectTypeOf<sdk.CredentialList>().toMatchTypeOf<Answer<typeof answers.credentialList>>();
  expectTypeOf<Answer<typeof answers.credentialCheck>>().toMatchTypeOf<sdk.CredentialCheck>();
  expectTypeOf<WithBigintWei<Answer<typeof answers.runResult>>>().toMatchTypeOf<sdk.RunResult>();
  expectTypeOf<Answer<typeof answers.runAccepted>>().toMatchTypeOf<sdk.RunAccepted>();
  type RunList = Answer<typeof answers.runList>;
  type RunListItem = WithBigintWei<RunList["runs"][number]>;
  expectTypeOf<RunListItem>().toMatchTypeOf<sdk.RunListItem>();
  expectTypeOf<sdk.RunListItem>().toMatchTypeOf<RunListItem>();
  type CreatorRunList = Answer<typeof answers.creatorRunList>;
  type Day = CreatorRunList["daily"][number];
  expectTypeOf<
    Omit<Day, "earned_wei"> & { earned_wei: bigint }
  >().toMatchTypeOf<sdk.DailyRunTotals>();
  expectTypeOf<CreatorRunList["next_cursor"]>().toEqualTypeOf<sdk.RunListPage["next_cursor"]>();
  expectTypeOf<Answer<typeof answers.apiKey>>().toMatchTypeOf<sdk.ApiKey>();
  expectTypeOf<Answer<typeof answers.createdApiKey>>().toMatchTypeOf<sdk.CreatedApiKey>();
  expectTypeOf<Answer<typeof answers.marketplace>>().toMatchTypeOf<sdk.Marketplace>();
  expectTypeOf<Answer<typeof answers.webhookEndpoint>>().toMatchTypeOf<sdk.WebhookEndpoint>();
  expectTypeOf<sdk.WebhookEndpoint>().toMatchTypeOf<Answer<typeof answers.webhookEndpoint>>();
  expectTypeOf<
    Answer<typeof answers.createdWebhookEndpoint>
  >().toMatchTypeOf<sdk.CreatedWebhookEndpoint>();
  expectTypeOf<
    Answer<typeof answers.webhookDeliveryPage>
  >().toMatchTypeOf<sdk.WebhookDeliveryPage>();
  expectTypeOf<sdk.WebhookDeliveryPage>().toMatchTypeOf<
    Answer<typeof answers.webhookDeliveryPage>
  >();
});
