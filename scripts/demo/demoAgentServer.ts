// The demo catalogue's connected agent, served by `npm start` on the local chain: a creator's webhook
// as the protocol of docs/execution.md describes it, over HTTPS with a dev CA certificate.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { DevCertificates } from "../../devStack/devCertificates.ts";
import type { Service } from "../../devStack/spawnService.ts";

/** Where the demo agent answers; its `entrypoint_url` in the catalogue. */
export const DEMO_AGENT_PATH = "/market-brief";
/** The webhook payload is a task and an input; anything larger is not a call from the marketplace. */
const MAX_REQUEST_BYTES = 256 * 1024;

type Payload = { run_id: string; task: string; input?: { sector?: unknown } };

/**
 * Serves the demo agent on 127.0.0.1:`port`. Each call must carry a valid Standard Webhooks
 * signature under the secret `webhookSecret()` gives (the one its registration returned); the answer
 * streams a market brief for `input.sector` as deltas, then the whole brief as the output.
 */
export async function startDemoAgent(options: {
  port: number;
  certificates: DevCertificates;
  webhookSecret: () => Promise<string | undefined>;
}): Promise<Service & { url: string }> {
  const server = createServer(
    { key: options.certificates.serverKey, cert: options.certificates.serverCertificate },
    (request, response) => {
      answer(request, response, options.webhookSecret).catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
        else response.destroy();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}${DEMO_AGENT_PATH}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  webhookSecret: () => Promise<string | undefined>,
): Promise<void> {
  if (request.method !== "POST" || request.url !== DEMO_AGENT_PATH) {
    response.writeHead(404).end();
    return;
  }
  const body = await readBody(request);
  const secret = await webhookSecret();
  if (body === undefined || secret === undefined) {
    response.writeHead(body === undefined ? 413 : 503).end();
    return;
  }
  let payload: Payload;
  try {
    payload = new Webhook(secret).verify(body, headersOf(request)) as Payload;
  } catch {
    response.writeHead(401, { "content-type": "application/json" });
    response.end('{"error":"the webhook signature does not verify"}');
    return;
  }

  const sector = String(payload.input?.sector ?? "the market").slice(0, 80);
  const brief = marketBrief(sector);
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  for (const delta of brief.match(/[^ ]+ */g) ?? []) {
    if (response.destroyed) return;
    response.write(`data: ${JSON.stringify({ delta })}\n\n`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  response.end(`data: ${JSON.stringify({ output: brief })}\n\n`);
}

/** A brief as the listing's `output_schema` (a string) wants it; its numbers are made up. */
function marketBrief(sector: string): string {
  const day = new Date().toISOString().slice(0, 10);
  const seed = [...sector].reduce((sum, char) => sum + char.charCodeAt(0), day.length);
  const move = ((seed % 41) - 20) / 10;
  const direction = move >= 0 ? "rose" : "fell";
  return (
    `${day}, ${sector}: the sector ${direction} ${Math.abs(move).toFixed(1)}% on the day. ` +
    `Leaders gained on guidance and order books; laggards gave back last week's gains. ` +
    `Watch tomorrow's earnings calls and rate expectations. ` +
    "(Demo agent on this machine: the figures are illustrative, not market data.)"
  );
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString();
}

function headersOf(request: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [
      name,
      String(request.headers[name] ?? ""),
    ]),
  );
}
