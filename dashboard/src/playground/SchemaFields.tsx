import type { FormField, FormValues } from "./schemaForm.ts";

/**
 * One control per field of the listing's input schema. Every text here comes from the schema and is
 * rendered as text; ids are made from positions, never from property names.
 */
export function SchemaFields({
  fields,
  values,
  onChange,
}: {
  fields: FormField[];
  values: FormValues;
  onChange: (name: string, value: string | boolean) => void;
}) {
  return (
    <fieldset className="schema-form">
      <legend>Input</legend>
      {fields.map((field, index) => (
        <SchemaField
          key={field.name}
          id={`input-field-${index}`}
          field={field}
          value={values[field.name] ?? field.initial}
          onChange={(value) => onChange(field.name, value)}
        />
      ))}
    </fieldset>
  );
}

function SchemaField({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: FormField;
  value: string | boolean;
  onChange: (value: string | boolean) => void;
}) {
  const hint = field.hint ? (
    <p id={`${id}-hint`} className="hint">
      {field.hint}
    </p>
  ) : null;
  const common = {
    id,
    required: field.required,
    "aria-describedby": field.hint ? `${id}-hint` : undefined,
  };
  if (field.kind === "boolean") {
    return (
      <div className="field">
        <label className="inline" htmlFor={id}>
          <input
            {...common}
            type="checkbox"
            required={false}
            checked={value === true}
            onChange={(event) => onChange(event.target.checked)}
          />
          {field.label}
        </label>
        {hint}
      </div>
    );
  }
  const text = String(value);
  return (
    <div className="field">
      <label htmlFor={id}>
        {field.label}
        {field.required ? " (required)" : ""}
      </label>
      {field.kind === "choice" ? (
        <select {...common} value={text} onChange={(event) => onChange(event.target.value)}>
          {(!field.required || text === "") && <option value="">—</option>}
          {field.choices?.map((choice) => (
            <option key={String(choice)} value={String(choice)}>
              {String(choice)}
            </option>
          ))}
        </select>
      ) : field.kind === "number" || field.kind === "integer" ? (
        <input
          {...common}
          type="number"
          step={field.kind === "integer" ? 1 : "any"}
          min={field.minimum}
          max={field.maximum}
          value={text}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : field.multiline ? (
        <textarea
          {...common}
          rows={4}
          maxLength={field.maxLength}
          value={text}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <input
          {...common}
          type="text"
          maxLength={field.maxLength}
          value={text}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      {hint}
    </div>
  );
}
