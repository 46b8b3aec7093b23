/** How a declarative agent's answer becomes its output, from the agent's `output_schema`. */
export type OutputContract =
  /** `{"type": "string"}`: the text the model writes. */
  | { kind: "text" }
  /**
   * Anything else: JSON the vendor is asked to conform to `vendorSchema` (an object at the top, as
   * the vendors require; any other schema is wrapped in one), and the output read back from it.
   */
  | { kind: "json"; vendorSchema: Record<string, unknown>; read: (answer: unknown) => unknown };

const WRAPPER_PROPERTY = "output";

export function outputContract(outputSchema: Record<string, unknown>): OutputContract {
  if (outputSchema.type === "string") return { kind: "text" };
  if (outputSchema.type === "object") {
    return { kind: "json", vendorSchema: outputSchema, read: (answer) => answer };
  }
  return {
    kind: "json",
    vendorSchema: {
      type: "object",
      properties: { [WRAPPER_PROPERTY]: outputSchema },
      required: [WRAPPER_PROPERTY],
    },
    read: (answer) =>
      answer && typeof answer === "object"
        ? (answer as Record<string, unknown>)[WRAPPER_PROPERTY]
        : undefined,
  };
}
