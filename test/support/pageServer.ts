// A real HTTPS server on loopback serving fixed pages, with a dev CA the returned policy trusts:
// the far end of the built-in tools' outbound reads under test. Pages are found by path, whatever
// the query; any other path is a 404.
import type { ServerResponse } from "node:http";
import { createDevCertificates } from "../../devStack/devCertificates.ts";
import type { OutboundPolicy } from "../../workers/execution/outbound/outboundPolicy.ts";
import { type ReceivedRequest, startHttpsTestServer } from "./httpsTestServer.ts";

export type Page =
  | { status?: number; type?: string; body?: string | Buffer; headers?: Record<string, string> }
  | ((request: ReceivedRequest, response: ServerResponse) => void);

export async function startPageServer(pages: Record<string, Page>) {
  const certificates = createDevCertificates();
  const server = await startHttpsTestServer(certificates, (request, response) => {
    const page = pages[request.path.split("?")[0] ?? ""];
    if (typeof page === "function") return page(request, response);
    if (!page) return void response.writeHead(404, { "content-type": "text/plain" }).end("none");
    response.writeHead(page.status ?? 200, {
      "content-type": page.type ?? "text/plain; charset=utf-8",
      ...page.headers,
    });
    response.end(page.body ?? "");
  });
  /** Trusts the server's CA and lets loopback through, as the local chain's policy does. */
  const policy: OutboundPolicy = {
    allowPrivateAddresses: true,
    extraCa: certificates.caCertificate,
  };
  return { ...server, policy };
}
