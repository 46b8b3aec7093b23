import { z } from "zod/v4";

export type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * Converts zod schemas to the JSON Schema (2020-12) of an OpenAPI 3.1 document: every schema named
 * with `.meta({ id })` once in `components`, referred to by `$ref` everywhere else.
 */
export class JsonSchemas {
  readonly components: Record<string, JsonSchema> = {};

  /** The JSON Schema of what `schema` takes (`input`: requests) or gives (`output`: responses). */
  of(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      io,
      unrepresentable: "any",
      override: ({ jsonSchema }) => {
        // zod's name of a schema, which JSON Schema does not know.
        delete jsonSchema.id;
        // Bounds zod puts on every integer: wei amounts pass them, and they say nothing.
        for (const bound of ["minimum", "maximum"] as const) {
          if (SAFE_INTEGER_BOUNDS.has(jsonSchema[bound] as number)) delete jsonSchema[bound];
        }
      },
    }) as JsonSchema;
    const { $schema: _, $defs, ...top } = converted;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      this.components[id] = withComponentRefs(definition);
    }
    const id = z.globalRegistry.get(schema)?.id;
    if (id === undefined) return withComponentRefs(top);
    this.components[id] = withComponentRefs(top);
    return { $ref: `#/components/schemas/${id}` };
  }
}

function withComponentRefs(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/'));
}
