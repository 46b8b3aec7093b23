// A real HTTPS server on a free loopback port, with a certificate from a dev CA, that keeps every
// request it was sent: the far end of the outbound calls under test.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type { DevCertificates } from "../../devStack/devCertificates.ts";

export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** The name the client asked for in TLS (SNI); false or null when it sent none. */
  servername: string | false | null;
};

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

export async function startHttpsTestServer(
  certificates: DevCertificates,
  handler: Handler,
): Promise<{
  port: number;
  url: (path?: string, host?: string) => string;
  received: ReceivedRequest[];
  close: () => Promise<void>;
}> {
  const received: ReceivedRequest[] = [];
  const server = createServer(
    { key: certificates.serverKey, cert: certificates.serverCertificate },
    async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const entry = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        servername: (request.socket as TLSSocket).servername,
      };
      received.push(entry);
      await handler(entry, response);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = "/", host = "127.0.0.1") => `https://${host}:${port}${path}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
