/** The wait before the next try after `failures` failed ones in a row: `baseMs`, doubling, at most `maxMs`. */
export function backoffMs(
  failures: number,
  { baseMs = 250, maxMs }: { baseMs?: number; maxMs: number },
) {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
}
