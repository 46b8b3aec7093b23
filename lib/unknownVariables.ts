// The variables have no prefix of their own (DATABASE_URL, API_PORT): a name is taken for one of ours
// misspelt when it starts with the first word of a known one and lies within a few edits of it, so
// API_PROT is caught while OPENAI_API_KEY or POSTGRES_PASSWORD, which other tools read, pass silently.

/** The known name closest to each unknown one taken for a misspelling of it. */
export type UnknownVariable = { name: string; closest: string };

/** Edits (insertions, deletions, substitutions) turning `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

const firstWord = (name: string) => name.split("_")[0];

/** The names in `source` that look like misspellings of `known` ones, each with the closest. */
export function unknownVariables(
  source: Record<string, string | undefined>,
  known: readonly string[],
): UnknownVariable[] {
  const knownSet = new Set(known);
  const ourWords = new Set(known.map(firstWord));
  const found: UnknownVariable[] = [];
  for (const name of Object.keys(source)) {
    if (knownSet.has(name) || !ourWords.has(firstWord(name))) continue;
    let closest = "";
    let distance = Number.POSITIVE_INFINITY;
    for (const candidate of known) {
      const edits = editDistance(name, candidate);
      if (edits < distance) [closest, distance] = [candidate, edits];
    }
    if (distance <= Math.max(2, Math.floor(name.length / 4))) found.push({ name, closest });
  }
  return found;
}
