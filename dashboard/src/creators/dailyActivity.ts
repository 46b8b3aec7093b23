/** A day of a creator's activity, as `creators.myRuns` gives it. */
type Day = { date: string; runs: number; failures: number; earned_wei: bigint };

const DAY_MS = 86_400_000;

/**
 * Every day from the first given to the last, oldest first: a day the API left out had no run and
 * earned nothing, and a chart that skipped it would draw the days either side as neighbours.
 */
export function everyDay(daily: Day[]): Day[] {
  const first = daily[0];
  const last = daily.at(-1);
  if (!first || !last) return [];
  const byDate = new Map(daily.map((day) => [day.date, day]));
  const days: Day[] = [];
  for (let at = Date.parse(first.date); at <= Date.parse(last.date); at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    days.push(byDate.get(date) ?? { date, runs: 0, failures: 0, earned_wei: 0n });
  }
  return days;
}

/** A round top for an axis over values up to `max`: 1, 2 or 5 times a power of ten. */
export function axisTop(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= max) ?? 10 * power;
}
