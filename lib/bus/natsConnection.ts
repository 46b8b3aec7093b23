import type { ConnectionOptions } from "@nats-io/transport-node";

/** What a client needs of `NATS_URL` to connect: the servers, and the credentials any of them names. */
export type NatsConnection = Pick<ConnectionOptions, "servers" | "user" | "pass" | "token">;

/**
 * `NATS_URL` read for a client: one server or a cluster's comma-separated, each of which may carry
 * the credentials, `nats://user:password@host:port` or `nats://token@host:port` (percent-encoded).
 * They are taken out of the server addresses, which the client keeps and reports in its errors, and
 * given to it as options; every server is asked with the same ones.
 */
export function natsConnection(natsUrl: string): NatsConnection {
  const credentials: Omit<NatsConnection, "servers"> = {};
  const servers = natsUrl.split(",").map((server) => {
    const url = new URL(server.trim());
    if (url.password) {
      credentials.user = decodeURIComponent(url.username);
      credentials.pass = decodeURIComponent(url.password);
    } else if (url.username) {
      credentials.token = decodeURIComponent(url.username);
    }
    return `${url.protocol}//${url.host}`;
  });
  return { servers, ...credentials };
}
