import { formatDate } from "./formatting.ts";

/** A moment as people read it, with its exact value for machines; a dash when there is none. */
export function DateTime({ iso }: { iso: string | null }) {
  return iso ? <time dateTime={iso}>{formatDate(iso)}</time> : "—";
}
