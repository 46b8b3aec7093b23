import { errors, jwtVerify, SignJWT } from "jose";
import type { Address } from "viem";
import { ApiError } from "../http/errors.ts";

/** The spec's JWT lifetime: one hour. */
export const TOKEN_LIFETIME_SECONDS = 3600;

export type JwtSettings = {
  secret: Uint8Array;
  issuer: string;
  audience: string;
  lifetimeSeconds: number;
};

/** The service's own tokens: signed with `secret`, issued by `serviceName` for its API. */
export function jwtSettings(
  serviceName: string,
  secret: Uint8Array,
  lifetimeSeconds = TOKEN_LIFETIME_SECONDS,
): JwtSettings {
  return { secret, issuer: serviceName, audience: `${serviceName}-api`, lifetimeSeconds };
}

export async function issueToken(wallet: Address, settings: JwtSettings, nowSeconds: number) {
  const expiresAt = nowSeconds + settings.lifetimeSeconds;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(wallet.toLowerCase())
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(expiresAt)
    .sign(settings.secret);
  return { token, expiresAt };
}

/**
 * The wallet a token speaks for, and when it expires (seconds since the epoch); only HS256 with our
 * key, issuer and audience is accepted.
 */
export async function verifyToken(
  token: string,
  settings: JwtSettings,
  nowSeconds: number,
): Promise<{ wallet: Address; expiresAt: number }> {
  try {
    const { payload } = await jwtVerify(token, settings.secret, {
      algorithms: ["HS256"],
      issuer: settings.issuer,
      audience: settings.audience,
      currentDate: new Date(nowSeconds * 1000),
      clockTolerance: 0,
      requiredClaims: ["exp", "sub"],
    });
    if (!/^0x[0-9a-f]{40}$/.test(payload.sub ?? "")) throw new Error("subject is not a wallet");
    return { wallet: payload.sub as Address, expiresAt: payload.exp as number };
  } catch (error) {
    if (error instanceof errors.JWTExpired) {
      throw new ApiError("jwt_expired", "The token has expired; authenticate again");
    }
    throw new ApiError("unauthorized", "The bearer token is not a valid API key or token");
  }
}
