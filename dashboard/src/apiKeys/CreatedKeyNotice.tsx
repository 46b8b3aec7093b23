import type { CreatedApiKey } from "@service/sdk";
import { CopyButton } from "../ui/CopyButton.tsx";

/** The key's value, shown this once. */
export function CreatedKeyNotice({ created }: { created: CreatedApiKey }) {
  return (
    <div className="notice" role="status">
      <p>
        <strong>Copy this key now: it will not be shown again.</strong> Keep it on your servers;
        never embed it in client-side code (web pages, mobile apps), where anyone can read it.
      </p>
      <p className="key">
        <code data-testid="created-key">{created.key}</code>
        <CopyButton text={created.key} what={`the key ${created.label}`} />
      </p>
    </div>
  );
}
