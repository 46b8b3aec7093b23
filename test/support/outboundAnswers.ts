// Reading what the outbound guard answered, in its tests.
import { expect } from "vitest";
import type { GuardedResponse } from "../../workers/execution/outbound/guardedRequest.ts";
import { OutboundFailure } from "../../workers/execution/outbound/outboundFailure.ts";

/** The whole body of a guarded response, as text. */
export async function readAll(response: GuardedResponse): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

/** The failure `call` ends in; fails the test when it succeeds or throws anything else. */
export async function failureOf(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(OutboundFailure);
  return (error as OutboundFailure).message;
}
