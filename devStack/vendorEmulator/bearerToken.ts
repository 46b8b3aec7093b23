import type { IncomingHttpHeaders } from "node:http";

/** The token of an `Authorization: Bearer …` header. */
export function bearerTokenOf(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
  return match?.[1];
}
