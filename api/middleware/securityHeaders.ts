const HEADERS: [string, string][] = [
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Origin-Agent-Cluster", "?1"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Frame-Options", "SAMEORIGIN"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

const LIVE_HEADERS: [string, string][] = [
  ...HEADERS,
  ["Strict-Transport-Security", "max-age=63072000; includeSubDomains"],
];

/** Browsers must not sniff, frame or pass on a referrer; on the live network, HTTPS only. */
export function securityHeaders({ live }: { live: boolean }): readonly [string, string][] {
  return live ? LIVE_HEADERS : HEADERS;
}
