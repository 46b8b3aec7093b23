/**
 * The creator's API key for a hosted model vendor: typed into a password field, sent once with the
 * manifest as `vendor_credentials`, kept in the page's memory only and never shown back.
 */
export function VendorKeyField({
  vendor,
  value,
  problems,
  onChange,
}: {
  vendor: string;
  value: string;
  problems: string[];
  onChange: (value: string) => void;
}) {
  const id = "vendor-api-key";
  return (
    <div className="field">
      <label htmlFor={id}>{vendor} API key</label>
      <input
        id={id}
        type="password"
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={problems.length > 0}
        aria-describedby={`${id}-hint${problems.length > 0 ? ` ${id}-problems` : ""}`}
      />
      <p id={`${id}-hint`} className="hint">
        Runs of this agent call {vendor} with it. It is sealed to the listing and never shown again.
      </p>
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
