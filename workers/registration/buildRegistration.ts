import type { Address, Hex } from "viem";
import { agentIdOf } from "../../lib/ids/agentId.ts";
import { contentId } from "../../lib/ids/contentId.ts";
import { deriveListingId } from "../../lib/ids/listingId.ts";
import {
  canonicalJson,
  privateManifest,
  publicManifest,
} from "../../lib/manifest/publicManifest.ts";
import { depthLimitViolation } from "../../lib/manifest/schemaLimits.ts";
import {
  type ManifestValidation,
  type ManifestViolation,
  validateManifest,
} from "../../lib/manifest/validateManifest.ts";

/** Everything a registration stores, derived from the request alone. */
export type Registration = {
  agentId: string;
  onChainListingId: Hex;
  seed: Hex;
  publicManifest: ReturnType<typeof publicManifest>;
  /** The public manifest's canonical bytes, stored under `cid`, which `metadataUri` names. */
  content: Buffer;
  cid: string;
  metadataUri: string;
  /** The private part, to be sealed to the listing. */
  secret: ReturnType<typeof privateManifest> & { vendor_credentials: unknown };
};

/** `validateManifest`, here or elsewhere (on a worker thread, see `startManifestValidationThreads`). */
export type ManifestValidator = (
  manifest: unknown,
) => ManifestValidation | Promise<ManifestValidation>;

/**
 * Validates a registration request (a manifest, plus `vendor_credentials` for hosted vendors) from
 * `creator` with `validate` and derives what registering it stores; `seed` makes its listing id.
 * Pure: the same inputs give the same registration, byte for byte.
 */
export async function buildRegistration(
  request: Record<string, unknown>,
  creator: Address,
  seed: Hex,
  validate: ManifestValidator = validateManifest,
): Promise<
  { ok: true; registration: Registration } | { ok: false; violations: ManifestViolation[] }
> {
  const built = await buildManifestVersion(request, validate);
  if (!built.ok) return built;
  const onChainListingId = deriveListingId(creator, seed);
  return {
    ok: true,
    registration: {
      agentId: agentIdOf(built.version.publicManifest.name, onChainListingId),
      onChainListingId,
      seed,
      ...built.version,
    },
  };
}

/** A manifest's stored parts: its public manifest by content id and its private part. */
export type ManifestVersion = Omit<Registration, "agentId" | "onChainListingId" | "seed">;

/**
 * Validates a manifest (plus `vendor_credentials` for hosted vendors) with `validate` and derives
 * its stored parts, for a registration or a new version of an agent. Pure, as `buildRegistration`.
 */
export async function buildManifestVersion(
  request: Record<string, unknown>,
  validate: ManifestValidator = validateManifest,
): Promise<
  { ok: true; version: ManifestVersion } | { ok: false; violations: ManifestViolation[] }
> {
  // First: what follows walks and copies the request, which would overflow the stack on deep values.
  const tooDeep = Object.entries(request).flatMap(([field, value]) => {
    const violation = depthLimitViolation(value);
    return violation ? [{ field, ...violation }] : [];
  });
  if (tooDeep.length > 0) return { ok: false, violations: tooDeep };
  const nul = pathOfNul(request);
  if (nul !== undefined) {
    // Postgres stores no NUL in text or JSON: refuse it precisely rather than fail to store it.
    return {
      ok: false,
      violations: [{ field: nul, rule: "no_nul", message: "must not contain the NUL character" }],
    };
  }
  const { vendor_credentials: vendorCredentials, ...input } = request;
  const validation = await validate(input);
  const violations = [
    ...(validation.ok ? [] : validation.violations),
    ...vendorCredentialViolations(vendorCredentials, input),
  ];
  if (!validation.ok || violations.length > 0) return { ok: false, violations };

  const manifest = validation.manifest;
  const content = Buffer.from(canonicalJson(publicManifest(manifest)));
  const cid = contentId(content);
  return {
    ok: true,
    version: {
      publicManifest: publicManifest(manifest),
      content,
      cid,
      metadataUri: `ipfs://${cid}`,
      secret: { ...privateManifest(manifest), vendor_credentials: vendorCredentials },
    },
  };
}

/** The dotted path of the first key or string holding U+0000, or undefined when none does. */
function pathOfNul(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? path || "manifest" : undefined;
  if (!value || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (key.includes("\u0000")) return itemPath;
    const found = pathOfNul(item, itemPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Hosted-vendor credentials: a flat map of strings, only for agents run on a hosted vendor. */
function vendorCredentialViolations(credentials: unknown, manifest: Record<string, unknown>) {
  if (credentials === undefined) return [];
  const violations: ManifestViolation[] = [];
  const provider = (manifest.model as { provider?: unknown } | undefined)?.provider;
  if (typeof manifest.entrypoint_url === "string" || provider === "self_hosted") {
    violations.push({
      field: "vendor_credentials",
      rule: "not_allowed",
      message: "vendor credentials are held only for agents run on a hosted vendor",
    });
  }
  const isFlatStringMap =
    credentials !== null &&
    typeof credentials === "object" &&
    !Array.isArray(credentials) &&
    Object.values(credentials).every((value) => typeof value === "string" && value.length <= 4096);
  if (!isFlatStringMap) {
    violations.push({
      field: "vendor_credentials",
      rule: "type",
      message: "must be an object of string values",
    });
  }
  return violations;
}
