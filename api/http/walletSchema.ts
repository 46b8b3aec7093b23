import { type Address, getAddress, isAddress } from "viem";
import { z } from "zod/v4";

/** A 0x address in any case, normalised to lowercase. */
export const walletSchema = z
  .string()
  .max(42)
  // `abort`: zod runs a transform even after a failed check, and getAddress throws on "abc".
  .refine((value) => isAddress(value, { strict: false }), {
    message: "must be a 0x-prefixed 20-byte address",
    abort: true,
  })
  .transform((value) => getAddress(value).toLowerCase() as Address);

export const signatureSchema = z
  .string()
  .max(20_000)
  .regex(/^0x[0-9a-fA-F]*$/, "must be 0x-prefixed hex")
  .transform((value) => value as `0x${string}`);

/**
 * A challenge as the API issued it, or the EIP-4361 message naming one; Postgres refuses NUL in
 * text, so it must not become a 500.
 */
export const challengeSchema = z
  .string()
  .min(1)
  .max(2_000)
  .refine((value) => !value.includes("\u0000"), "must not contain NUL");
