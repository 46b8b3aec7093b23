import { useState } from "react";

/** Copies `text`; `what` completes the button's name for screen readers ("Copy the key …"). */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(text);
    setCopied(true);
  };
  return (
    <span className="copy">
      <button type="button" onClick={copy}>
        Copy<span className="visually-hidden"> {what}</span>
      </button>
      <span role="status">{copied ? "Copied" : ""}</span>
    </span>
  );
}
