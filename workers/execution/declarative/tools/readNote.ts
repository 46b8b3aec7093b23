import type { FetchedText } from "./fetchText.ts";

/** Says, when it is so, that only the beginning of an answer was read. */
export function readNote(fetched: FetchedText): string {
  return fetched.truncated
    ? `; only its first ${Math.round(fetched.readBytes / 1024)} KB were read`
    : "";
}
