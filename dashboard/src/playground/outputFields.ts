// A run's output as labelled values, read from the agent's `output_schema`: an object whose
// properties the schema declares. Anything else is shown as the JSON it is.

export type OutputValue =
  | { kind: "text"; text: string }
  | { kind: "list"; items: string[] }
  /** An object, or a list holding objects or lists: shown as JSON where it stands. */
  | { kind: "json"; json: string };

export type OutputField = {
  name: string;
  /** The property's `title`, else its name. */
  label: string;
  value: OutputValue;
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isScalar = (value: unknown): value is string | number | boolean | null =>
  value === null || ["string", "number", "boolean"].includes(typeof value);

function shownValueOf(value: unknown): OutputValue {
  if (isScalar(value)) return { kind: "text", text: String(value) };
  if (Array.isArray(value) && value.every(isScalar)) {
    return { kind: "list", items: value.map((item) => String(item)) };
  }
  return { kind: "json", json: JSON.stringify(value, null, 2) };
}

/**
 * The output's fields in the schema's order, or undefined when the output is not an object of the
 * object schema's declared properties (then it is shown as raw JSON).
 */
export function outputFieldsOf(schema: unknown, output: unknown): OutputField[] | undefined {
  if (!isPlainObject(schema) || schema.type !== "object") return undefined;
  if (!isPlainObject(schema.properties) || !isPlainObject(output)) return undefined;
  const properties = schema.properties;
  if (Object.keys(output).some((name) => !Object.hasOwn(properties, name))) return undefined;
  const fields: OutputField[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!Object.hasOwn(output, name)) continue;
    const title = isPlainObject(property) ? property.title : undefined;
    fields.push({
      name,
      label: typeof title === "string" && title ? title : name,
      value: shownValueOf(output[name]),
    });
  }
  return fields.length > 0 ? fields : undefined;
}

/** The streamed text of an output as JSON, or undefined when it is not JSON. */
export function parseOutputText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
