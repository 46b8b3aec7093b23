// Requests from another loopback address than 127.0.0.1 (all of 127.0.0.0/8 reaches this machine), so
// a test can be several clients, each with an address of its own, as the API sees them.
import { request } from "node:http";
import type { Send } from "./http.ts";

/** A `send` for `http()` whose connections leave from `localAddress`, e.g. "127.0.0.2". */
export function sendFrom(localAddress: string): Send {
  return (url, init) =>
    new Promise((resolve, reject) => {
      const outgoing = request(
        url,
        {
          method: init.method,
          headers: init.headers as Record<string, string>,
          localAddress,
          agent: false,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
          incoming.on("error", reject);
          incoming.on("end", () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const one of [value ?? []].flat()) headers.append(name, one);
            }
            resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode, headers }));
          });
        },
      );
      outgoing.on("error", reject);
      outgoing.end(typeof init.body === "string" ? init.body : undefined);
    });
}
