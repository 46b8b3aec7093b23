import type { ReactNode } from "react";
import { explainError } from "./errorText.ts";

/** An error in words; `action` offers the way out (e.g. a top-up for insufficient_balance). */
export function ErrorMessage({
  error,
  action,
}: {
  error: unknown;
  action?: (code: string | undefined) => ReactNode;
}) {
  if (!error) return null;
  const { message, code } = explainError(error);
  return (
    <div className="error" role="alert">
      <p>{message}</p>
      {action?.(code)}
    </div>
  );
}
