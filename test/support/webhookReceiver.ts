// A webhook endpoint for tests: a real HTTPS server (certificate from the stack's dev CA) at which
// each path is one registered endpoint with its own secret. Every delivery is verified with the
// `standardwebhooks` library, as a receiver would, and kept with its attempt number, and the path's
// behaviour answers it.
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import type { DevCertificates } from "../../devStack/devCertificates.ts";
import { startHttpsTestServer } from "./httpsTestServer.ts";
import { until } from "./registration.ts";

export type Delivery = {
  path: string;
  /** The `webhook-id` header. */
  id: string;
  /** 1 for the first request with this `webhook-id`. */
  attempt: number;
  /** `Webhook.verify` accepted it under the path's secret. */
  verified: boolean;
  /** The raw body, as signed. */
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests compare whole bodies against the spec
  payload: any;
  headers: Record<string, string>;
  /** When it arrived, in `Date.now()` time. */
  at: number;
};

/** How a path answers an attempt: by default 200. */
export type Answer = (attempt: number, response: ServerResponse) => void | Promise<void>;

export const answers = {
  ok: (() => {}) as Answer,
  /** 500 for the first `times` attempts of each delivery, then 200. */
  failing:
    (times: number): Answer =>
    (attempt, response) => {
      if (attempt <= times) response.writeHead(500).end("not now");
    },
  /** Never answers the first attempt of a delivery (the connection stays open); 200 after. */
  holdingFirst: ((attempt) => (attempt === 1 ? new Promise(() => {}) : undefined)) as Answer,
  /** Never answers. */
  silent: (() => new Promise(() => {})) as Answer,
};

export async function startWebhookReceiver(certificates: DevCertificates) {
  const paths = new Map<string, { secret: string; answer: Answer }>();
  const attempts = new Map<string, number>();
  const deliveries: Delivery[] = [];
  /** Connections the server saw closed, by path, when the closer is known to be the client. */
  const closed = new Map<string, number>();
  const server = await startHttpsTestServer(certificates, async (request, response) => {
    response.on("error", () => {});
    response.on("close", () => closed.set(request.path, (closed.get(request.path) ?? 0) + 1));
    const headers = request.headers as Record<string, string>;
    const endpoint = paths.get(request.path);
    const id = headers["webhook-id"] ?? "";
    const attempt = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, attempt);
    let verified = false;
    let payload: unknown;
    try {
      payload = new Webhook(endpoint?.secret ?? "whsec_AAAA").verify(request.body, headers);
      verified = true;
    } catch {
      payload = undefined;
    }
    deliveries.push({
      path: request.path,
      id,
      attempt,
      verified,
      body: request.body,
      payload,
      headers,
      at: Date.now(),
    });
    await endpoint?.answer(attempt, response);
    if (!response.headersSent) response.writeHead(verified ? 204 : 401).end();
  });
  let made = 0;
  return {
    /** A new endpoint's path and URL; `accept` gives it the secret its creation answered. */
    endpoint(answer: Answer = answers.ok) {
      const path = `/hooks/${++made}`;
      return {
        path,
        url: server.url(path),
        accept: (secret: string) => paths.set(path, { secret, answer }),
      };
    },
    deliveries,
    deliveriesTo: (path: string) => deliveries.filter((delivery) => delivery.path === path),
    /** The first verified delivery at `path` that `matches`, once it has arrived. */
    deliveryTo(
      path: string,
      matches: (delivery: Delivery) => boolean = () => true,
      timeoutMs?: number,
    ) {
      return until(
        `a delivery to ${path}`,
        () => deliveries.find((delivery) => delivery.path === path && matches(delivery)),
        timeoutMs,
      );
    },
    closedAt: (path: string) => closed.get(path) ?? 0,
    close: server.close,
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
