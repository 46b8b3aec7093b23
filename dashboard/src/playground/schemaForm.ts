// The Playground's input form, read from a listing's `input_schema`: an object whose properties are
// strings, numbers, integers, booleans or enums. Anything else, and schemas past the bounds below,
// are edited as raw JSON; the API validates the input against the whole schema either way.

/** More properties than this and the form would be a wall of fields: the input is edited as JSON. */
export const MAX_FORM_FIELDS = 50;
const MAX_CHOICES = 100;

export type FormField = {
  /** The property's name, the key it is sent under. */
  name: string;
  /** The property's `title`, else its name. */
  label: string;
  /** The property's `description`. */
  hint?: string;
  required: boolean;
  kind: "text" | "number" | "integer" | "boolean" | "choice";
  /** An enum's values, as sent. */
  choices?: (string | number)[];
  /** A string without a short `maxLength`: a text area. */
  multiline: boolean;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  initial: string | boolean;
};

/** What a form's fields hold: text as typed, checkboxes as booleans. */
export type FormValues = Record<string, string | boolean>;

/** Keywords that constrain an object beyond its properties, which a form cannot show. */
const OBJECT_KEYWORDS_BEYOND_A_FORM = [
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "$ref",
  "patternProperties",
  "dependentRequired",
  "dependentSchemas",
];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const numberOrUndefined = (value: unknown) => (typeof value === "number" ? value : undefined);

/** The form's fields for `schema`, or undefined when a form cannot express it. */
export function formFieldsOf(schema: unknown): FormField[] | undefined {
  if (!isPlainObject(schema)) return undefined;
  if (schema.type !== undefined && schema.type !== "object") return undefined;
  if (OBJECT_KEYWORDS_BEYOND_A_FORM.some((keyword) => keyword in schema)) return undefined;
  if (!isPlainObject(schema.properties)) return undefined;
  const entries = Object.entries(schema.properties);
  if (entries.length === 0 || entries.length > MAX_FORM_FIELDS) return undefined;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields: FormField[] = [];
  for (const [name, property] of entries) {
    const field = fieldOf(name, property, required.includes(name));
    if (!field) return undefined;
    fields.push(field);
  }
  return fields;
}

function fieldOf(name: string, property: unknown, required: boolean): FormField | undefined {
  if (!isPlainObject(property)) return undefined;
  const base = {
    name,
    label: typeof property.title === "string" && property.title ? property.title : name,
    hint: typeof property.description === "string" ? property.description : undefined,
    required,
    multiline: false,
  };
  const initial = property.default;
  if (Array.isArray(property.enum)) {
    const choices = property.enum.filter((c) => typeof c === "string" || typeof c === "number");
    const simple = choices.length === property.enum.length;
    if (!simple || choices.length === 0 || choices.length > MAX_CHOICES) return undefined;
    const start = property.enum.includes(initial) ? String(initial) : "";
    return { ...base, kind: "choice", choices, initial: start };
  }
  switch (property.type) {
    case "string": {
      const maxLength = numberOrUndefined(property.maxLength);
      const start = typeof initial === "string" ? initial : "";
      const multiline = maxLength === undefined || maxLength > 120;
      return { ...base, kind: "text", multiline, maxLength, initial: start };
    }
    case "number":
    case "integer":
      return {
        ...base,
        kind: property.type,
        minimum: numberOrUndefined(property.minimum),
        maximum: numberOrUndefined(property.maximum),
        initial: typeof initial === "number" ? String(initial) : "",
      };
    case "boolean":
      return { ...base, kind: "boolean", initial: initial === true };
    default:
      return undefined;
  }
}

export const initialValues = (fields: FormField[]): FormValues =>
  Object.fromEntries(fields.map((field) => [field.name, field.initial]));

/**
 * The input the form's values make: an empty optional field is left out, a checkbox is always sent.
 * A problem, in words, where a value is not what its field takes.
 */
export function inputFromValues(
  fields: FormField[],
  values: FormValues,
): { input: Record<string, unknown> } | { problem: string } {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name] ?? field.initial;
    if (field.kind === "boolean") {
      input[field.name] = value === true;
      continue;
    }
    const text = String(value);
    if (text === "" && !field.required) continue;
    if (field.kind === "choice") {
      input[field.name] = field.choices?.find((choice) => String(choice) === text) ?? text;
    } else if (field.kind === "number" || field.kind === "integer") {
      const number = Number(text);
      if (text.trim() === "" || !Number.isFinite(number)) {
        return { problem: `${field.label} must be a number.` };
      }
      if (field.kind === "integer" && !Number.isInteger(number)) {
        return { problem: `${field.label} must be a whole number.` };
      }
      input[field.name] = number;
    } else {
      input[field.name] = text;
    }
  }
  return { input };
}

/** The form's values for `input`, or undefined when it holds what the form has no field for. */
export function valuesFromInput(fields: FormField[], input: unknown): FormValues | undefined {
  if (!isPlainObject(input)) return undefined;
  const known = new Set(fields.map((field) => field.name));
  if (Object.keys(input).some((name) => !known.has(name))) return undefined;
  const values: FormValues = {};
  for (const field of fields) {
    const value = input[field.name];
    if (value === undefined) values[field.name] = field.kind === "boolean" ? false : "";
    else if (field.kind === "boolean" && typeof value === "boolean") values[field.name] = value;
    else if (field.kind !== "boolean" && (typeof value === "string" || typeof value === "number")) {
      values[field.name] = String(value);
    } else return undefined;
  }
  return values;
}
