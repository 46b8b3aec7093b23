import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { linearRegExpEngine } from "./linearRegExp.ts";

/**
 * How every creator schema is compiled. Unknown keywords are tolerated (strict off) and formats
 * skipped (unknown ones would otherwise be logged). `$ref`s are calls, never inlined: inlining copies
 * the referenced schema at every reference, so 300 references to one large definition cost 30 s and
 * most of a gigabyte. Patterns run on RE2, in time linear in the input.
 */
export const SCHEMA_COMPILER_OPTIONS: Options = {
  strict: false,
  validateFormats: false,
  inlineRefs: false,
  code: { regExp: linearRegExpEngine },
};

/**
 * Compiles a creator's schema. Compiling registers the schema's `$id`s, so each schema gets a
 * throwaway instance: one creator's ids must neither clash with nor resolve in another's schema.
 * Throws when the schema does not compile. Check it against `SCHEMA_LIMITS` first.
 */
export function compileSchema(schema: object): ValidateFunction {
  return new Ajv({ ...SCHEMA_COMPILER_OPTIONS, validateSchema: false }).compile(schema);
}

/** Where an input breaks its schema: `path` from `input` (`input.items[2].name`), and why. */
export type InputMismatch = { path: string; message: string };

export type InputValidation = { ok: true } | { ok: false; mismatch: InputMismatch };

/**
 * A check of a task's `input` against the agent's `input_schema` (as registered, so it compiles),
 * naming the first mismatch's path. Patterns match in linear time, however hostile the input.
 */
export function compileInputValidator(inputSchema: object): (input: unknown) => InputValidation {
  const validate = compileSchema(inputSchema);
  return (input) => {
    try {
      if (validate(input)) return { ok: true };
    } catch (error) {
      // A recursive schema follows the input down; input nested past the stack cannot be checked.
      if (error instanceof RangeError) {
        return { ok: false, mismatch: { path: "input", message: "is nested too deeply to check" } };
      }
      throw error;
    }
    const [error] = validate.errors ?? [];
    return { ok: false, mismatch: error ? mismatchOf(error, input) : unknownMismatch };
  };
}

const unknownMismatch: InputMismatch = { path: "input", message: "does not match input_schema" };

/** Ajv names the object for a missing or extra property; the path names the property itself. */
function mismatchOf(error: ErrorObject, input: unknown): InputMismatch {
  const keys = error.instancePath.split("/").slice(1).map(unescapePointer);
  const { missingProperty, additionalProperty } = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof missingProperty === "string") {
    return { path: pathOf(input, [...keys, missingProperty]), message: "is required" };
  }
  if (error.keyword === "additionalProperties" && typeof additionalProperty === "string") {
    return { path: pathOf(input, [...keys, additionalProperty]), message: "is not allowed" };
  }
  return { path: pathOf(input, keys), message: error.message ?? "is invalid" };
}

/** `input.items[2].name`; a key that is not a plain name is quoted: `input["a b"]`. */
function pathOf(input: unknown, keys: string[]): string {
  let path = "input";
  let value = input;
  for (const key of keys) {
    if (Array.isArray(value)) path += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) path += `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
    value =
      value !== null && typeof value === "object"
        ? (value as Record<string, unknown>)[key]
        : undefined;
  }
  return path;
}

/** JSON Pointer escapes (RFC 6901): `~1` is `/`, `~0` is `~`. */
function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}
