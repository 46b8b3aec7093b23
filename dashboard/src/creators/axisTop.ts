/** A round top for an axis over values up to `max`: 1, 2 or 5 times a power of ten. */
export function axisTop(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= max) ?? 10 * power;
}
