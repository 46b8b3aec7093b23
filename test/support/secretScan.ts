// One scan for secrets over everything a stack's processes print (anvil, Postgres, NATS, Ponder, API
// and workers): every kind the marketplace handles, found by shape or by value.
import { API_KEY_FORMAT } from "../../api/auth/apiKeys.ts";
import { JWT_SECRET, SEALING_KEY, type Stack } from "../../devStack/startStack.ts";
import { WEBHOOK_SECRET_FORMAT } from "../../lib/agents/webhookSecret.ts";
import { devPrivateKey, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { captureOutput } from "./processOutput.ts";

/** Secrets whose shape alone gives them away, whoever made them. */
const SHAPES: Record<string, RegExp> = {
  // A header and a payload as base64url JSON, then the signature (empty when unsigned).
  JWT: /eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
  "API key": new RegExp(API_KEY_FORMAT, "g"),
  // 65 bytes, as a wallet's personal_sign gives them; a longer run of hex is other data.
  "wallet signature": /(?<![0-9a-fA-F])0x[0-9a-fA-F]{130}(?![0-9a-fA-F])/g,
  "webhook secret": new RegExp(WEBHOOK_SECRET_FORMAT, "g"),
};

/**
 * What a part of the stack prints once it runs: proof that its output reached the scan. (anvil runs
 * `--quiet` and prints only its errors, see devStack/startAnvil.ts.)
 */
export const SIGNS_OF_LIFE = {
  postgres: "database system is ready to accept connections",
  nats: "Server is ready",
  ponder: "Started returning 200 responses",
  api: '"component":"api"',
  worker: '"component":"worker"',
} as const;

export type StackPart = keyof typeof SIGNS_OF_LIFE;

/** Shorter values are not secrets that could be told apart from ordinary text ("0x", a prefix). */
const SHORTEST_SECRET = 16;

/**
 * Pass `onOutput` to the stack; `remember` the secrets a test makes (signatures, prompts, vendor
 * credentials); `leaks(stack)` then lists every secret in the output, the stack's own keys and
 * Postgres password included, each as its kind and the line it stood in (the secret masked).
 */
/** What the scan reads of a stack: the passwords of its Postgres and, if it has one, its NATS. */
type ScannedStack = Pick<Stack, "postgres"> & Partial<Pick<Stack, "nats">>;

export function secretScan() {
  const output = captureOutput();
  const remembered = new Map<string, string>();
  const remember = (kind: string, value: string) => {
    if (value.length >= SHORTEST_SECRET) remembered.set(value, kind);
  };

  function valuesOf(stack: ScannedStack): Map<string, string> {
    const values = new Map<string, string>([
      [JWT_SECRET, "JWT secret"],
      [SEALING_KEY, "sealing key"],
      // The key the stack's settling processes sign with (public on the local chain, never printed),
      // with or without its 0x.
      [devPrivateKey(LOCAL_ROLES.operator).slice(2), "operator key"],
    ]);
    try {
      values.set(stack.postgres.password, "Postgres password");
    } catch {
      // A stack without Postgres has no password to leak.
    }
    try {
      if (stack.nats?.password) values.set(stack.nats.password, "NATS password");
    } catch {
      // Nor one without NATS.
    }
    for (const [value, kind] of remembered) values.set(value, kind);
    return values;
  }

  return {
    ...output,
    remember,
    /** How many secrets the test remembered: a scan for none would prove nothing. */
    rememberedCount: () => remembered.size,
    /** The parts of `expected` whose output has not reached the scan. */
    unheard(expected: StackPart[]): StackPart[] {
      const text = output.text();
      return expected.filter((part) => !text.includes(SIGNS_OF_LIFE[part]));
    },
    /** Every secret printed so far: "kind: the line, with the secret masked". */
    leaks(stack: ScannedStack): string[] {
      const values = valuesOf(stack);
      const found: string[] = [];
      const report = (kind: string, line: string, secret: string) =>
        found.push(`${kind}: ${line.replaceAll(secret, `<${kind}>`).trim().slice(0, 300)}`);
      for (const line of output.text().split("\n")) {
        for (const [kind, shape] of Object.entries(SHAPES)) {
          for (const [match] of line.matchAll(shape)) report(kind, line, match);
        }
        for (const [value, kind] of values) if (line.includes(value)) report(kind, line, value);
      }
      return found;
    },
  };
}
