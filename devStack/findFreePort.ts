import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago: another process may take it before it is bound. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("no port assigned"));
      });
    });
  });
}

/** A service could not listen on its port: another process holds it. */
export class PortTakenError extends Error {
  readonly port: number;
  constructor(port: number, service: string) {
    super(`${service} could not listen on port ${port}: another process holds it`);
    this.port = port;
  }
}

/**
 * Starts a service on a free port, and again on another if the port was taken between being found
 * and being bound (`start` fails with PortTakenError, see `waitUntilReady`).
 */
export async function startOnFreePort<T>(
  start: (port: number) => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await findFreePort());
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= attempts) throw error;
    }
  }
}
