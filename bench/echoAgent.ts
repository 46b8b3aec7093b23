// A connected agent as small as the protocol allows, in a process of its own (forked by
// startEchoAgent.ts): it notes when each webhook call arrives, verifies its Standard Webhooks
// signature and answers the task back as the output, as JSON, at once.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { EchoAgentCommand, EchoAgentReport } from "./startEchoAgent.ts";

const send = (report: EchoAgentReport) => process.send?.(report);

/** Webhook secret by request path, each a listing's registration's. */
const webhooks = new Map<string, Webhook>();
/** The run id (`webhook-id`) of each call received, and when its headers arrived (epoch ms). */
let arrivals: [string, number][] = [];
let refused = 0;

const server = createServer(
  { key: process.env.ECHO_AGENT_KEY, cert: process.env.ECHO_AGENT_CERTIFICATE },
  (request, response) => {
    const arrivedAt = performance.timeOrigin + performance.now();
    arrivals.push([String(request.headers["webhook-id"]), arrivedAt]);
    answer(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  },
);

async function answer(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString();
  const headers = Object.fromEntries(
    ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [
      name,
      String(request.headers[name] ?? ""),
    ]),
  );
  let payload: { task: string };
  try {
    const webhook = webhooks.get(request.url ?? "");
    if (!webhook) throw new Error("no secret for this path");
    payload = webhook.verify(body, headers) as { task: string };
  } catch {
    refused++;
    response.writeHead(401).end();
    return;
  }
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify({ output: payload.task }));
}

process.on("message", (command: EchoAgentCommand) => {
  if (command.kind === "secrets") {
    for (const [path, secret] of Object.entries(command.secrets)) {
      webhooks.set(path, new Webhook(secret));
    }
    send({ kind: "secrets set" });
  } else if (command.kind === "take arrivals") {
    send({ kind: "arrivals", arrivals, refused });
    arrivals = [];
  }
});
// The parent going away ends this process.
process.on("disconnect", () => process.exit(0));

server.listen(0, "127.0.0.1", () => {
  send({ kind: "listening", port: (server.address() as AddressInfo).port });
});
