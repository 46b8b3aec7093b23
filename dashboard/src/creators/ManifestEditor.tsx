import { Fragment, type ReactNode } from "react";
import { MANIFEST_FIELDS, type ManifestField } from "./manifestFields.ts";

/**
 * One input per manifest field, with the problems found in it shown right beneath it; `after`
 * places more beneath a field (the vendor key beneath the model).
 */
export function ManifestEditor({
  values,
  problems,
  onChange,
  after = {},
}: {
  values: Record<string, string>;
  problems: Record<string, string[]>;
  onChange: (name: string, value: string) => void;
  after?: Record<string, ReactNode>;
}) {
  return (
    <>
      {MANIFEST_FIELDS.map((field) => (
        <Fragment key={field.name}>
          <FieldEditor
            field={field}
            value={values[field.name] ?? ""}
            problems={problems[field.name] ?? []}
            onChange={(value) => onChange(field.name, value)}
          />
          {after[field.name]}
        </Fragment>
      ))}
    </>
  );
}

function FieldEditor({
  field,
  value,
  problems,
  onChange,
}: {
  field: ManifestField;
  value: string;
  problems: string[];
  onChange: (value: string) => void;
}) {
  const id = `manifest-${field.name}`;
  const described = [field.hint && `${id}-hint`, problems.length > 0 && `${id}-problems`]
    .filter(Boolean)
    .join(" ");
  const common = {
    id,
    value,
    "aria-invalid": problems.length > 0,
    "aria-describedby": described || undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      {field.kind === "select" ? (
        <select {...common} onChange={(event) => onChange(event.target.value)}>
          {field.options?.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : field.kind === "text" || field.kind === "number" ? (
        <input
          {...common}
          type={field.kind === "number" ? "number" : "text"}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <textarea
          {...common}
          rows={field.kind === "json" ? 5 : 3}
          className={field.kind === "json" ? "json" : undefined}
          spellCheck={field.kind !== "json"}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      {field.hint && (
        <p id={`${id}-hint`} className="hint">
          {field.hint}
        </p>
      )}
      {problems.length > 0 && (
        <ul id={`${id}-problems`} className="error problems">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
