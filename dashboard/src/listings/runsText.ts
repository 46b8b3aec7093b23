/** A listing's runs and the share that succeeded; no rate before the first run. */
export function runsText({ run_count, success_rate }: { run_count: number; success_rate: number }) {
  if (run_count === 0) return "none yet";
  return `${run_count} (${Math.round(success_rate * 100)}% succeeded)`;
}
