import { parseSiweMessage } from "viem/siwe";
import { ServiceSigningRefusedError } from "./errors.ts";

/** A viem `LocalAccount` (or anything that signs messages as its address). */
export type MessageSigner = {
  address: string;
  signMessage(args: { message: string }): Promise<string>;
};

/** A viem `WalletClient` with its account. */
export type WalletClientSigner = {
  account: { address: string };
  signMessage(args: { account: never; message: string }): Promise<string>;
};

export type WalletSigner = MessageSigner | WalletClientSigner;

/** The spec's challenge lifetime, which tells this client the server's clock. */
const CHALLENGE_LIFETIME_SECONDS = 60;
/** Renew this long before expiry at most, and at most a fifth of the token's lifetime early. */
const RENEW_AHEAD_SECONDS = 60;

type SignInCalls = {
  /** The host (and port) of the client's `baseUrl`: every message it signs must name it. */
  domain: string;
  challenge(wallet: string): Promise<{ challenge: string; expires_at: number }>;
  token(body: { wallet: string; challenge: string; signature: string }): Promise<{
    token: string;
    expires_at: number;
  }>;
};

/**
 * A wallet's JWT, obtained with the challenge flow in its EIP-4361 (SIWE) form and renewed before
 * it expires, never used past `expires_at`. The server's clock is read off the challenge (issued
 * now, valid 60 s), so a client clock that is off does not make it use an expired token. Renewal
 * happens on the first request after the renewal time, so an idle client keeps no timer.
 */
export class WalletSession {
  readonly address: string;
  #signer: WalletSigner;
  #calls: SignInCalls;
  #current?: { token: string; renewAtMs: number };
  #signingIn?: Promise<string>;

  constructor(signer: WalletSigner, calls: SignInCalls) {
    this.#signer = signer;
    this.#calls = calls;
    this.address = "account" in signer ? signer.account.address : signer.address;
  }

  /** A token valid for a while yet: the one held, or a new one. */
  async token(): Promise<string> {
    if (this.#current && Date.now() < this.#current.renewAtMs) return this.#current.token;
    this.#signingIn ??= this.#signIn().finally(() => {
      this.#signingIn = undefined;
    });
    return this.#signingIn;
  }

  /** Drops the token held, e.g. once the API has called it expired. */
  forget(token: string): void {
    if (this.#current?.token === token) this.#current = undefined;
  }

  async #signIn(): Promise<string> {
    const askedAtMs = Date.now();
    const { challenge, expires_at: challengeExpiry } = await this.#calls.challenge(this.address);
    // The most the server's clock can be ahead: it issued the challenge within the second it
    // names, after this client asked.
    const issuedBeforeMs = (challengeExpiry - CHALLENGE_LIFETIME_SECONDS + 1) * 1000;
    const serverOffsetMs = issuedBeforeMs - askedAtMs;
    const signature = await this.signSiwe(challenge);
    const { token, expires_at } = await this.#calls.token({
      wallet: this.address,
      challenge,
      signature,
    });
    const expiresAtMs = expires_at * 1000 - serverOffsetMs;
    const lifetimeMs = Math.max(0, expiresAtMs - Date.now());
    const aheadMs = Math.min(RENEW_AHEAD_SECONDS * 1000, lifetimeMs / 5);
    this.#current = { token, renewAtMs: expiresAtMs - aheadMs };
    return token;
  }

  /**
   * The wallet's EIP-191 signature of a SIWE message, once it is seen to name this client's API and
   * wallet: a message naming another domain, or none (the spec's challenge), is refused unsigned.
   */
  async signSiwe(message: string): Promise<string> {
    const fields = parseSiweMessage(message);
    if (fields.domain !== this.#calls.domain) {
      throw new ServiceSigningRefusedError(
        fields.domain
          ? `Refusing to sign a message for ${fields.domain}: this client's API is ${this.#calls.domain}`
          : `Refusing to sign a message that names no domain: this client's API is ${this.#calls.domain}`,
      );
    }
    if (fields.address?.toLowerCase() !== this.address.toLowerCase()) {
      throw new ServiceSigningRefusedError("Refusing to sign a message for another wallet");
    }
    return this.#sign(message);
  }

  #sign(message: string): Promise<string> {
    const signer = this.#signer;
    if ("account" in signer) {
      return signer.signMessage({ account: signer.account as never, message });
    }
    return signer.signMessage({ message });
  }
}
