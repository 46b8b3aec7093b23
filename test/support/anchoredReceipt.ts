// A run's receipt document once settlement has anchored its batch on-chain, polled from the API as
// the run's renter: 409 until the run's cost is final, then `anchor` null until its batch's root is.
import { expect } from "vitest";
import type { ReceiptDocument } from "../../sdk/src/receipts/receiptTypes.ts";
import type { http } from "./http.ts";
import { until } from "./registration.ts";

export function anchoredReceipt(
  api: ReturnType<typeof http>,
  runId: string,
): Promise<ReceiptDocument> {
  return until(`run ${runId}'s anchored receipt`, async () => {
    const response = await api.get(`/v1/runs/${runId}/receipt`);
    expect([200, 409], JSON.stringify(response.body)).toContain(response.status);
    const document = response.body as ReceiptDocument;
    return response.status === 200 && document.anchor !== null && document;
  });
}
