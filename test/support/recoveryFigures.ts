// How work went on after a fault, from the moments its pieces finished: figures to print, never to
// assert (they depend on how busy the machine is).

/**
 * The first finish after `faultAt`, and the longest time after it with nothing finished: how long
 * the fault stopped the work.
 */
export function recoveryFigures(finishedAt: number[], faultAt: number) {
  const after = finishedAt.filter((at) => at >= faultAt).sort((a, b) => a - b);
  let longestPauseMs = 0;
  let previous = faultAt;
  for (const at of after) {
    longestPauseMs = Math.max(longestPauseMs, at - previous);
    previous = at;
  }
  return {
    firstFinishedAfterFaultMs: after.length > 0 ? (after[0] as number) - faultAt : undefined,
    longestPauseAfterFaultMs: longestPauseMs,
  };
}
