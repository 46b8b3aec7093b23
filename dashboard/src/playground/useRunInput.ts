import { useState } from "react";
import {
  type FormField,
  type FormValues,
  initialValues,
  inputFromValues,
  valuesFromInput,
} from "./schemaForm.ts";

export type InputMode = "form" | "json";

const JSON_PROBLEM = 'The input must be JSON, e.g. {"source": "…"}';

function parseJson(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: text.trim() ? JSON.parse(text) : undefined };
  } catch {
    return { problem: JSON_PROBLEM };
  }
}

/**
 * A run's input, edited in the form `fields` make (when the schema allows one) or as raw JSON, and
 * carried over when the renter switches between the two. A new set of fields starts afresh.
 */
export function useRunInput(fields: FormField[] | undefined) {
  const [shownFor, setShownFor] = useState(fields);
  const [mode, setMode] = useState<InputMode>(fields ? "form" : "json");
  const [values, setValues] = useState<FormValues>(fields ? initialValues(fields) : {});
  const [json, setJson] = useState("");
  const [problem, setProblem] = useState<string>();
  if (shownFor !== fields) {
    setShownFor(fields);
    setMode(fields ? "form" : "json");
    setValues(fields ? initialValues(fields) : {});
    setProblem(undefined);
  }

  const switchTo = (next: InputMode) => {
    if (!fields || next === mode) return;
    if (next === "json") {
      const built = inputFromValues(fields, values);
      if ("problem" in built) return setProblem(built.problem);
      setJson(JSON.stringify(built.input, null, 2));
    } else {
      const parsed = parseJson(json);
      if ("problem" in parsed) return setProblem(parsed.problem);
      const formValues =
        parsed.value === undefined ? initialValues(fields) : valuesFromInput(fields, parsed.value);
      if (!formValues) {
        return setProblem("This input holds what the form has no field for: edit it as JSON.");
      }
      setValues(formValues);
    }
    setProblem(undefined);
    setMode(next);
  };

  /** The input to send (undefined for none), or null once a problem is shown instead. */
  const read = (): Record<string, unknown> | undefined | null => {
    const built =
      mode === "form" && fields ? inputFromValues(fields, values) : parseJsonInput(json);
    if ("problem" in built) {
      setProblem(built.problem);
      return null;
    }
    setProblem(undefined);
    return built.input;
  };

  return {
    fields,
    mode,
    switchTo,
    values,
    setValue: (name: string, value: string | boolean) => setValues({ ...values, [name]: value }),
    json,
    setJson,
    problem,
    read,
  };
}

function parseJsonInput(
  text: string,
): { input: Record<string, unknown> | undefined } | { problem: string } {
  const parsed = parseJson(text);
  if ("problem" in parsed) return parsed;
  return { input: parsed.value as Record<string, unknown> | undefined };
}

export type RunInput = ReturnType<typeof useRunInput>;
