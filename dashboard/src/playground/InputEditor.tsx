import { SchemaFields } from "./SchemaFields.tsx";
import type { RunInput } from "./useRunInput.ts";

/** The run's input: the listing's generated form, or raw JSON, and a switch between them. */
export function InputEditor({ input }: { input: RunInput }) {
  return (
    <>
      {input.fields && (
        <fieldset className="input-mode">
          <legend>Input as</legend>
          <label className="inline">
            <input
              type="radio"
              name="input-mode"
              checked={input.mode === "form"}
              onChange={() => input.switchTo("form")}
            />
            Form
          </label>
          <label className="inline">
            <input
              type="radio"
              name="input-mode"
              checked={input.mode === "json"}
              onChange={() => input.switchTo("json")}
            />
            JSON
          </label>
        </fieldset>
      )}
      {input.mode === "form" && input.fields ? (
        <SchemaFields fields={input.fields} values={input.values} onChange={input.setValue} />
      ) : (
        <label>
          Input (JSON{input.fields ? "" : ", optional"})
          <textarea
            value={input.json}
            onChange={(event) => input.setJson(event.target.value)}
            rows={input.fields ? 8 : 3}
            className="json"
            spellCheck={false}
            aria-invalid={!!input.problem}
            aria-describedby={input.problem ? "input-error" : undefined}
          />
        </label>
      )}
      {input.problem && (
        <p id="input-error" className="error" role="alert">
          {input.problem}
        </p>
      )}
    </>
  );
}
