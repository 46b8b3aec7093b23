import { Fragment, useId, useState } from "react";
import { type OutputField, outputFieldsOf, parseOutputText } from "./outputFields.ts";

/**
 * A run's output: streamed in as text while it runs; once it completed as an object the agent's
 * output schema describes, its fields as labelled values, with the raw JSON a button away.
 */
export function RunOutput({
  text,
  placeholder,
  completed,
  outputSchema,
}: {
  text: string;
  placeholder: string;
  completed: boolean;
  outputSchema: unknown;
}) {
  const [raw, setRaw] = useState(false);
  const fields = completed ? outputFieldsOf(outputSchema, parseOutputText(text)) : undefined;
  const rawId = useId();
  return (
    <div aria-live="polite">
      {fields && (
        <>
          <OutputFields fields={fields} />
          <button
            type="button"
            aria-pressed={raw}
            aria-controls={rawId}
            onClick={() => setRaw(!raw)}
          >
            Raw JSON
          </button>
        </>
      )}
      <pre id={rawId} className="output" data-testid="run-output" hidden={!!fields && !raw}>
        {text || placeholder}
      </pre>
    </div>
  );
}

function OutputFields({ fields }: { fields: OutputField[] }) {
  return (
    <dl className="facts output-fields" aria-label="Output fields" data-testid="output-fields">
      {fields.map(({ name, label, value }) => (
        <Fragment key={name}>
          <dt>{label}</dt>
          <dd>
            {value.kind === "text" && value.text}
            {value.kind === "list" && (
              <ul>
                {value.items.map((item, index) => (
                  // Items may repeat; their place is what tells them apart.
                  // biome-ignore lint/suspicious/noArrayIndexKey: a list shown as it came
                  <li key={index}>{item}</li>
                ))}
              </ul>
            )}
            {value.kind === "json" && <pre>{value.json}</pre>}
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}
