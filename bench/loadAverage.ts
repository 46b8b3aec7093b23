import { fixed } from "./markdownTable.ts";

/** The machine's load averages before and after a run, as every benchmark prints them. */
export function loadAverageLine(before: number[], after: number[]): string {
  const load = (values: number[]) => values.map((value) => fixed(value, 2)).join(" / ");
  return `Load average (1/5/15 min) before: ${load(before)}; after: ${load(after)}.`;
}
