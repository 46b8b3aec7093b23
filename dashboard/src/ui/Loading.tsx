import { useEffect, useState } from "react";

/** Shown only for waits over 300 ms, so quick answers do not flicker. */
const DELAY_MS = 300;

export function Loading({ label }: { label: string }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  return (
    <p className="loading" role="status" aria-live="polite">
      {shown ? `${label}…` : ""}
    </p>
  );
}
