/** A labelled amount of ETH typed in, as text (`parseEthInput` reads it); `invalid` marks it as such. */
export function EthField({
  label,
  value,
  onChange,
  invalid,
}: {
  label: string;
  value: string;
  onChange: (text: string) => void;
  invalid?: boolean;
}) {
  return (
    <label>
      {label}
      <input
        type="number"
        min="0"
        step="any"
        inputMode="decimal"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={invalid}
      />
    </label>
  );
}
